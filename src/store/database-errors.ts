// Every database error the service can meet, classified: the caller's doing (a value the database
// refuses) is that caller's 1xxx code; the database unreachable, overloaded, shutting down or too
// slow is 503/4001 (retry later); only the truly unexpected (our own bug: a syntax error, a missing
// table) is left to be answered -1. Errors come from pg directly (SQLSTATE in `code`), from Prisma
// through its pg driver adapter (SQLSTATE in `cause.originalCode` or `meta.driverAdapterError`), or
// from the pool and the sockets under them (Node's error codes, or only a message).
//
// The one place that decides by SQLSTATE. A unique or foreign-key refusal (23505, 23503) is told by
// its constraint's name in store/constraints.ts, which knows the record and the resource; one that
// reaches here names no constraint the registry knows: ours, unexpected.
import { type BusinessCode, Code } from '../errors.ts'
import { type Message, message } from '../messages/message.ts'

export interface DatabaseRefusal {
  code: BusinessCode
  message: Message
}

const UNAVAILABLE: DatabaseRefusal = { code: Code.databaseUnavailable, message: message('databaseUnavailable') }
const BUSY: DatabaseRefusal = { code: Code.databaseUnavailable, message: message('databaseBusy') }

/** Node socket errors: the database cannot be reached. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ECONNABORTED',
])

/** Prisma's driver-adapter error kinds and Prisma error codes meaning the database is out of reach or too busy. */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'TransactionWriteConflict',
])
const UNAVAILABLE_PRISMA_CODES = new Set([
  'P1000',
  'P1001',
  'P1002',
  'P1003',
  'P1008',
  'P1011',
  'P1017',
  'P2024',
  'P2028',
  'P2034',
  'P2037',
])
const BAD_VALUE_PRISMA_CODES = new Set(['P2000', 'P2005', 'P2006', 'P2007', 'P2011', 'P2019', 'P2020', 'P2023', 'P2033'])

/** Messages of pg and pg-pool errors that carry no code. */
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|connection terminated|connection timeout|query read timeout|not queryable|cannot use a pool after calling end|connection (?:is )?closed|server closed the connection/i

/** The SQLSTATE of a PostgreSQL error, however it was wrapped; undefined when there is none. */
export function sqlState(error: unknown): string | undefined {
  const candidates = [
    // pg's DatabaseError (a server's answer has a severity; Node's EPIPE & co. have none)
    typeof field(error, 'severity') === 'string' ? field(error, 'code') : undefined,
    // Prisma's DriverAdapterError, and the same inside a PrismaClientKnownRequestError
    field(field(error, 'cause'), 'originalCode'),
    field(field(field(field(error, 'meta'), 'driverAdapterError'), 'cause'), 'originalCode'),
  ]
  return candidates.find((code): code is string => typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
}

/**
 * What the caller is told of a database error: its code and a message naming nothing internal.
 * Undefined when the error is not the caller's doing nor the database's unavailability: unexpected.
 */
export function classifyDatabaseError(error: unknown): DatabaseRefusal | undefined {
  if (error === null || typeof error !== 'object') return undefined
  const state = sqlState(error)
  if (state) return bySqlState(state, error)
  const code = field(error, 'code')
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return UNAVAILABLE
  const kind = field(field(error, 'cause'), 'kind') ?? field(field(field(field(error, 'meta'), 'driverAdapterError'), 'cause'), 'kind')
  if (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) return UNAVAILABLE
  if (kind === 'LengthMismatch' || kind === 'ValueOutOfRange')
    return badValue(kind === 'LengthMismatch' ? message('columnTooLong', { at: '' }) : message('valueOutOfRange'))
  if (typeof code === 'string' && UNAVAILABLE_PRISMA_CODES.has(code)) return UNAVAILABLE
  if (typeof code === 'string' && BAD_VALUE_PRISMA_CODES.has(code)) return badValue(message('columnNotStorable', { at: '' }))
  const causeCode = field(field(error, 'cause'), 'code')
  if (typeof causeCode === 'string' && SOCKET_CODES.has(causeCode)) return UNAVAILABLE
  const text = field(error, 'message')
  if (typeof text === 'string' && UNAVAILABLE_MESSAGES.test(text)) return UNAVAILABLE
  return undefined
}

function bySqlState(state: string, error: unknown): DatabaseRefusal | undefined {
  const column = field(error, 'column')
  const at = typeof column === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(column) ? message('columnAt', { column }) : ''
  switch (state) {
    case '23502':
      return badValue(message('columnNotNull', { at }))
    case '23514':
      return badValue(message('columnRuleBroken', { at }))
    case '22001':
      return badValue(message('columnTooLong', { at }))
    case '22003':
      return badValue(message('columnNumberRange', { at }))
    case '22007':
    case '22008':
    case '22009':
      return badValue(message('columnDateRange', { at }))
    case '22021':
    case '22P05':
      return badValue(message('columnText', { at }))
    case '57014': // statement_timeout, or a cancelled query
    case '55P03': // lock_not_available (lock_timeout)
    case '25P03': // idle_in_transaction_session_timeout
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
      return BUSY
    case '55000': // object_not_in_prerequisite_state: also the database closed to connections (ALLOW_CONNECTIONS false)
      return /not currently accepting connections/i.test(messagesOf(error)) ? UNAVAILABLE : undefined
  }
  switch (state.slice(0, 2)) {
    case '22': // data exception: a value the caller sent
      return badValue(message('columnNotStorable', { at }))
    case '54': // program limit exceeded: a value too large to index, a statement too complex
      return badValue(message('columnTooLarge', { at }))
    case '08': // connection exception
    case '53': // insufficient resources: too many connections, out of memory or disk
    case '57': // operator intervention: shutting down, cannot connect now
    case '58': // system error: I/O
    case '28': // invalid authorization: the service's own credentials refused
    case '3D': // the database does not exist (dropped, or not created yet)
      return UNAVAILABLE
    default: // 42 syntax or undefined object, XX internal, 0A unsupported, 25 transaction state...: ours
      return undefined
  }
}

/** The error's message and, wrapped by Prisma's driver adapter, the database's own. */
function messagesOf(error: unknown): string {
  const cause = field(error, 'cause') ?? field(field(field(error, 'meta'), 'driverAdapterError'), 'cause')
  return [field(error, 'message'), field(cause, 'originalMessage')].filter((text) => typeof text === 'string').join('\n')
}

function badValue(said: Message): DatabaseRefusal {
  return { code: Code.badParameter, message: said }
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && name in value ? (value as Record<string, unknown>)[name] : undefined
}
