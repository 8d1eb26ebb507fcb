// Unit tier: the language of `msg` chosen from Accept-Language. Chinese when a `zh` range ranks
// above every `en` range (quality values; of equal ranks the first listed), so also when no `en`
// range is sent; English otherwise. Other ranges, `*` among them, do not count.
import t, { type Test } from 'tap'
import { negotiateLanguage } from '../../src/http/language.ts'

const cases = (t: Test, expected: 'en' | 'zh', headers: (string | string[] | undefined)[]) => {
  for (const header of headers) t.equal(negotiateLanguage(header), expected, JSON.stringify(header))
}

t.test('no header, an empty one, or only other languages: English', async (t) => {
  cases(t, 'en', [undefined, '', ' ', 'fr', 'fr-FR, de;q=0.9', 'ja, ko'])
})

t.test('a zh range of any region or script: Chinese', async (t) => {
  cases(t, 'zh', ['zh', 'zh-CN', 'zh-cn', 'ZH-CN', 'zh-TW', 'zh-HK', 'zh-Hans', 'zh-Hant-TW', 'zh-Hans-CN', 'fr, zh', 'fr;q=0.9, zh;q=0.1'])
})

t.test('quality values rank the ranges', async (t) => {
  cases(t, 'zh', [
    'zh-CN,zh;q=0.9,en;q=0.8',
    'en;q=0.5, zh',
    'en;q=0.8, zh-TW;q=0.9',
    'zh;q=0.001',
    'en;q=0, zh;q=0.1',
    'zh;q=1.000, en;q=0.999',
  ])
  cases(t, 'en', ['en-US,en;q=0.9,zh-CN;q=0.8', 'zh;q=0.5, en', 'zh;q=0', 'zh-CN;q=0, en;q=0', 'zh;q=0, fr'])
})

t.test('equal ranks: the range listed first', async (t) => {
  cases(t, 'en', ['en, zh', 'en-GB, zh-CN', 'en;q=0.5, zh;q=0.5', 'en-US, zh'])
  cases(t, 'zh', ['zh, en', 'zh-CN, en-US', 'zh;q=0.5, en;q=0.50'])
})

t.test('`*` plays no part: only the zh and en ranges count', async (t) => {
  cases(t, 'en', ['*', '*;q=0.5', '*, en', '*, en;q=0.1, zh;q=0.05', '*, zh;q=0', 'en, *, zh'])
  cases(t, 'zh', ['*, zh', '*;q=0.9, zh;q=0.5', 'zh;q=0.5, *', 'zh, *', '*;q=0, zh', '*, en;q=0.1, zh;q=0.5', '*, en;q=0, zh;q=0.5'])
})

t.test('malformed ranges and weights are ignored, as if not sent', async (t) => {
  cases(t, 'en', [
    'zh;q=2',
    'zh;q=abc',
    'zh;q=0.5000',
    'zh;level=1',
    'zh_CN',
    '中文',
    '"zh"',
    ';;;',
    ',,,',
    'zh-',
    'zh--CN',
    'zh;q=',
    'zh;q=-1',
  ])
  cases(t, 'zh', ['zh;q=2, zh-CN;q=0.5', 'zh, en;q=abc', 'en;q=1.5, zh;q=0.1', ',zh-CN,,'])
  cases(t, 'en', ['zh;q=abc, en', 'en, zh;q=2'])
})

t.test('several Accept-Language headers count as one list', async (t) => {
  cases(t, 'zh', [['zh-CN', 'en;q=0.5']])
  cases(t, 'en', [['en', 'zh']])
})
