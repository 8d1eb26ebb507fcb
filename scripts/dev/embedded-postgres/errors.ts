/** A reason the embedded PostgreSQL cannot start, in one line (callers add the fix they know). */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError'
}

/** The port asked for is taken: the caller knows which setting chooses another one. */
export class PortInUseError extends EmbeddedPostgresError {
  override name = 'PortInUseError'
  readonly port: number
  constructor(port: number) {
    super(`port ${port} on 127.0.0.1 is already in use`)
    this.port = port
  }
}
