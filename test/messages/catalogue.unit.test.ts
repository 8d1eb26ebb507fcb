// Unit tier: the catalogue of messages. Every entry has both languages, both name the same
// placeholders, and a parameter (a value of the request, a field name) is written as it came.
import t from 'tap'
import { catalogue } from '../../src/messages/catalogue.ts'
import { english, LANGUAGES, message, render } from '../../src/messages/message.ts'

const placeholders = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort()

/** Letters of words outside the placeholders: text a reader would have translated. */
const words = (template: string) => template.replace(/\{\w+\}/g, '').replace(/[^A-Za-z]/g, '')

t.test('every message has both languages, non-empty, with the same placeholders', async (t) => {
  const entries = Object.entries(catalogue)
  t.ok(entries.length > 100, `${entries.length} messages`)
  for (const [id, entry] of entries) {
    t.same(Object.keys(entry).sort(), [...LANGUAGES].sort(), `${id}: exactly the service's languages`)
    for (const language of LANGUAGES) t.ok(entry[language].trim().length > 0 || id === 'listSeparator', `${id}: ${language} is not empty`)
    t.same(placeholders(entry.zh), placeholders(entry.en), `${id}: the same placeholders in both languages`)
  }
})

t.test('the Chinese of every message with English words is Chinese, not a copy', async (t) => {
  for (const [id, entry] of Object.entries(catalogue)) {
    if (words(entry.en).length === 0) continue
    t.not(entry.zh, entry.en, `${id} is translated`)
    t.match(entry.zh, /[\u4e00-\u9fff]/, `${id}: its Chinese has Chinese characters`)
  }
})

t.test('parameters are written as they came, in every language; nested messages in the same language', async (t) => {
  const said = message('required', { field: 'riskUnitName' })
  t.equal(render(said, 'en'), 'riskUnitName: required')
  t.equal(render(said, 'zh'), 'riskUnitName 必填')
  const nested = message('requiredWhen', {
    fields: 'contractorOrg',
    condition: message('whenIs', { field: 'isContractorWork', value: '1' }),
  })
  t.equal(render(nested, 'en'), 'contractorOrg: required when isContractorWork is 1')
  t.equal(render(nested, 'zh'), 'contractorOrg 必填（当 isContractorWork 为 1 时）')
  const quoted = message('recordNotFound', { id: '$& {id} 中文' })
  t.equal(render(quoted, 'zh'), '记录不存在：$& {id} 中文', 'a value that looks like a pattern or a placeholder stays as sent')
  const list = message('problems', { list: [message('required', { field: 'a' }), message('unknownField', { field: 'b' })] })
  t.equal(render(list, 'en'), 'a: required; b: unknown field')
  t.equal(render(list, 'zh'), 'a 必填；未知字段 b')
})

t.test('a kept answer read back from JSON renders as the message it was', async (t) => {
  const said = message('batchSize', { limit: 500, count: 0 })
  const readBack = JSON.parse(JSON.stringify(said))
  t.equal(render(readBack, 'zh'), render(said, 'zh'))
  t.equal(english(readBack), 'list must hold 1 to 500 items, got 0')
  t.equal(render('text kept as text', 'zh'), 'text kept as text')
})
