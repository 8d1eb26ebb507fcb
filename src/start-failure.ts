// Why a start could not proceed, in one line naming the cause and the fix (no stack trace): the
// port, the database, a setting. Used by src/edition.ts; pure, so it is tested without a database.

interface Where {
  port: number
  host: string
  databaseUrl: string
}

interface Failure {
  code?: string
  message: string
  syscall?: string
  /** The name a failed look-up (getaddrinfo) was of. */
  hostname?: string
}

/** The first error in the chain (cause, AggregateError.errors) that carries a code, else the error itself. */
function rootFailure(error: unknown): Failure {
  const seen = new Set<unknown>()
  const queue = [error]
  while (queue.length > 0) {
    const current = queue.shift()
    if (current === null || typeof current !== 'object' || seen.has(current)) continue
    seen.add(current)
    const { code } = current as { code?: unknown }
    if (typeof code === 'string') return current as Failure
    queue.push((current as { cause?: unknown }).cause, ...((current as { errors?: unknown[] }).errors ?? []))
  }
  return { message: error instanceof Error ? error.message : String(error) }
}

/** host:port/name of the database, without user or password. */
export function databaseShown(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl)
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`
  } catch {
    return 'DATABASE_URL'
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

function listenFailure(code: string, { port, host }: Where): string | undefined {
  if (code === 'EADDRINUSE') {
    return `port ${port} is already in use (on ${host}): stop the process listening on it, or set PORT to a free port`
  }
  if (code === 'EACCES') return `not allowed to listen on port ${port} (ports below 1024 need privileges): set PORT to a port above 1023`
  if (code === 'EADDRNOTAVAIL') return `HOST ${host} is not an address of this machine: set HOST to one of its addresses, or to 0.0.0.0`
  return undefined
}

/** HOST a name that does not resolve (the listen's look-up of it failed, not the database's). */
function hostFailure(failure: Failure, { host }: Where): string | undefined {
  const lookup = failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN'
  if (!lookup || failure.hostname !== host) return undefined
  return `HOST ${host} is not a name this machine resolves (${failure.code}): set HOST to one of its addresses, or to 0.0.0.0`
}

function databaseFailure(failure: Failure, where: Where): string | undefined {
  const db = databaseShown(where.databaseUrl)
  const why = oneLine(failure.message)
  const code = failure.code ?? ''
  const timedOut = /timeout .*connect|connection timeout/i.test(why)
  if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET'].includes(code) || timedOut) {
    return `the database at ${db} is unreachable (${code || why}): start PostgreSQL there, or set DATABASE_URL to a reachable server`
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `the database host in DATABASE_URL (${db}) is unknown (${code}): correct the host name in DATABASE_URL`
  }
  if (/connection terminated unexpectedly/i.test(why)) {
    return `the server at ${db} closed the connection before answering (${why}): check that DATABASE_URL names a PostgreSQL server that lets this machine in`
  }
  if (/does not support SSL/i.test(why))
    return `the database at ${db} does not support SSL, which DATABASE_URL asks for (sslmode): drop sslmode from DATABASE_URL, or enable SSL on the server`
  if (code === '28P01' || code === '28000')
    return `the database at ${db} refused the login (${why}): correct the user and password in DATABASE_URL`
  if (code === '3D000') return `the database at ${db} does not exist (${why}): create it (createdb), or correct the name in DATABASE_URL`
  if (code === '42501')
    return `the database user lacks a privilege the service needs at ${db} (${why}): grant it, or use the database's owner in DATABASE_URL`
  if (['57P01', '57P02', '57P03', '53300'].includes(code) || code.startsWith('08')) {
    return `the database at ${db} does not accept connections now (${why}): start again once it does`
  }
  return undefined
}

/** One line for a start that failed: the cause and what to do about it. */
export function describeStartFailure(error: unknown, where: Where): string {
  const failure = rootFailure(error)
  const known =
    (failure.syscall === 'listen' && listenFailure(failure.code ?? '', where)) ||
    hostFailure(failure, where) ||
    databaseFailure(failure, where)
  if (known) return `cannot start: ${known}`
  return `cannot start: ${oneLine(failure.message)} (run with LOG_LEVEL=debug to see where)`
}
