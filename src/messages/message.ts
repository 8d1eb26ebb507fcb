// A message is an id of the catalogue and its parameters, not text: business code throws one, and
// it becomes text only when the answer is written, in the language the request chose. Parameters
// are the caller's own values, field names and code values, written as they are in every
// language, or nested messages, rendered in the same language. A message stays plain data, so a
// kept answer (an Idempotency-Key's) is rendered again in the language of the request replaying it.
import { catalogue, type Placeholders } from './catalogue.ts'

/** The languages of `msg`: English, and Chinese (simplified). */
export type Language = 'en' | 'zh'

export const LANGUAGES: readonly Language[] = ['en', 'zh']

export type MessageId = keyof typeof catalogue

type ParamsOf<Id extends MessageId> = Placeholders<(typeof catalogue)[Id]['en']>

/** A list of messages is rendered joined by the language's separator. */
export type Param = string | number | Message | readonly Message[]

export interface Message {
  readonly id: MessageId
  readonly params?: Readonly<Record<string, Param>>
}

/** The message `id` with its parameters; the types ask for exactly the template's placeholders. */
export function message<Id extends MessageId>(
  id: Id,
  ...params: [ParamsOf<Id>] extends [never] ? [] : [Readonly<Record<ParamsOf<Id>, Param>>]
): Message {
  return params.length === 0 ? { id } : { id, params: params[0] }
}

const PLACEHOLDER = /\{(\w+)\}/g

/** The text of a message in `language`; a string (an answer kept before messages were ids) as it is. */
export function render(said: Message | string, language: Language): string {
  if (typeof said === 'string') return said
  const entry = Object.hasOwn(catalogue, said.id) ? catalogue[said.id] : undefined
  if (!entry) return String(said.id)
  return entry[language].replace(PLACEHOLDER, (whole, name: string) => {
    const value = said.params && Object.hasOwn(said.params, name) ? said.params[name] : undefined
    return value === undefined ? whole : renderParam(value, language)
  })
}

function renderParam(value: Param, language: Language): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  if (Array.isArray(value)) return value.map((item: Message) => render(item, language)).join(catalogue.listSeparator[language])
  return render(value as Message, language)
}

/** The English text: what the log, and an add-batch's `failed[].reason`, carry. */
export function english(said: Message | string): string {
  return render(said, 'en')
}

/** Whether a value is a message (also one read back from JSON). */
export function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
}
