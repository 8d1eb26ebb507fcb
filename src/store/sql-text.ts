// Names from the registry written into statement text: quoted as identifiers or as string literals.
// (Values never are: they go as parameters.)

/** A column or table name of the registry, quoted. */
export const quote = (name: string) => `"${name}"`

/** A text of the registry (a resource key, a field name) as an SQL string literal. */
export const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/**
 * The statement's time as the service keeps its own instants (createTime, updateTime, deleteTime,
 * sync_time): to the second, as they are written back and as callers' instants are kept. A
 * fraction kept would make a record differ from what its reads show: not `eq` to its own
 * `updateTime`, and ordered among writes of the same second by it instead of by `id`.
 */
export const NOW = `date_trunc('second', now())`

/**
 * The push state of a row written again (or queued again whole): to be pushed, with no attempt
 * spent, no sweep round, no error. One fragment, so every write that needs a push says it alike.
 */
export const PUSH_AGAIN = `sync_status = 'pending', sync_attempts = 0, sync_rounds = 0, sync_error = NULL`
