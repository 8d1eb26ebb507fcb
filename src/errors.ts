// The one error type and the envelope, imported by every layer and importing only the messages:
// anything may throw a BusinessError(code, message); the error handler (http/plugins/envelope.ts)
// turns it, and every other error, Fastify's own included, into the response envelope, whose `msg`
// is the message rendered in the request's language (messages/).
import { english, type Message, message } from './messages/message.ts'

/** Business codes, listed once (the document's table of codes). */
export const Code = {
  ok: 0,
  malformed: 1000,
  duplicateUnique: 1001,
  badParameter: 1002,
  idExists: 1003,
  notFound: 1004,
  batchSize: 1005,
  missingReference: 1006,
  idempotencyMismatch: 1007,
  noSuchPath: 1008,
  rateLimited: 1009,
  tooLarge: 1010,
  illegalTransition: 1011,
  stillReferenced: 1012,
  notLoggedIn: 2001,
  badToken: 2002,
  forbidden: 2003,
  loginFailed: 2004,
  databaseUnavailable: 4001,
  unexpected: -1,
} as const

export type BusinessCode = (typeof Code)[keyof typeof Code]

/** HTTP status of each code: business failures are 200, the rest as the document's table of codes says. */
const httpStatus: Partial<Record<BusinessCode, number>> = {
  [Code.malformed]: 400,
  [Code.noSuchPath]: 404,
  [Code.rateLimited]: 429,
  [Code.tooLarge]: 413,
  [Code.notLoggedIn]: 401,
  [Code.badToken]: 401,
  [Code.forbidden]: 403,
  [Code.databaseUnavailable]: 503,
  [Code.unexpected]: 500,
}

export function statusOf(code: BusinessCode): number {
  return httpStatus[code] ?? 200
}

/** A refusal: its code, and its message (an id and parameters); `message` is its English text, for the log. */
export class BusinessError extends Error {
  readonly code: BusinessCode
  readonly msg: Message
  constructor(code: BusinessCode, msg: Message) {
    super(english(msg))
    this.code = code
    this.msg = msg
  }
}

/** 1002 naming `companyCode`: on the park several enterprises hold `what` and the caller named none. */
export function severalEnterprises(what: string | Message): BusinessError {
  return new BusinessError(Code.badParameter, message('severalEnterprises', { what }))
}

/** The answer; `msg` is text once written, a message until then (rendered in the request's language). */
export interface Envelope<T = unknown> {
  msg: string | Message
  code: BusinessCode
  data: T | null
  success: boolean
}

export function success<T>(data: T | null = null): Envelope<T> {
  return { msg: '', code: Code.ok, data, success: true }
}

export function failure(code: BusinessCode, msg: Message): Envelope<never> {
  return { msg, code, data: null, success: false }
}

/** The English text of the generic failure, as an add-batch item's `reason` carries it. */
export const GENERIC_BUSY_MESSAGE = english(message('systemBusy'))
