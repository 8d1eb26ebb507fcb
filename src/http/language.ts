// The language of a request's `msg`, chosen once from its Accept-Language: Chinese (simplified)
// when a `zh` range (any region or script: zh, zh-CN, zh-TW, zh-Hans…) ranks above every `en`
// range, English otherwise: a `zh` range with no `en` range at all is Chinese. Ranks are HTTP's
// quality values; of equal ranks, the range listed first wins. Other ranges, `*` among them, play
// no part. A range or weight that breaks HTTP's grammar is ignored, as if not sent. negotiator
// ranks the ranges; the rule above is applied to its ranking. Every answer says the language chosen
// (Content-Language) and that it depends on the header (Vary).
import type { FastifyReply, FastifyRequest } from 'fastify'
import Negotiator from 'negotiator'
import type { Language } from '../messages/message.ts'

/** Content-Language of each language. */
export const CONTENT_LANGUAGE: Record<Language, string> = { en: 'en', zh: 'zh-CN' }

/** One element of Accept-Language as HTTP writes it: a language range and an optional weight. */
const ELEMENT = /^[ \t]*(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)[ \t]*(?:;[ \t]*[qQ]=(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)[ \t]*)?$/

const primary = (range: string): string => range.split('-')[0].toLowerCase()

export function negotiateLanguage(header: string | string[] | undefined): Language {
  if (header === undefined) return 'en'
  const elements = (Array.isArray(header) ? header.join(',') : header).split(',').filter((element) => ELEMENT.test(element))
  if (elements.length === 0) return 'en'
  const negotiator = new Negotiator({ headers: { 'accept-language': elements.join(',') } })
  // Best first, ties in the order sent; ranges of weight 0 left out.
  for (const range of negotiator.languages()) {
    if (primary(range) === 'zh') return 'zh'
    if (primary(range) === 'en') return 'en'
  }
  return 'en'
}

const chosen = new WeakMap<FastifyRequest, Language>()

/** The language of this request's `msg`, negotiated on first use. */
export function languageOf(request: FastifyRequest): Language {
  let language = chosen.get(request)
  if (language === undefined) {
    language = negotiateLanguage(request.headers['accept-language'])
    chosen.set(request, language)
  }
  return language
}

/** Content-Language and Vary on the answer. */
export function announceLanguage(reply: FastifyReply, language: Language): void {
  reply.header('content-language', CONTENT_LANGUAGE[language])
  const vary = reply.getHeader('vary')
  const listed = typeof vary === 'string' ? vary : Array.isArray(vary) ? vary.join(', ') : ''
  if (!listed.split(',').some((name) => name.trim().toLowerCase() === 'accept-language' || name.trim() === '*')) {
    reply.header('vary', listed ? `${listed}, Accept-Language` : 'Accept-Language')
  }
}
