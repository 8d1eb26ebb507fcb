// A TCP proxy in front of PostgreSQL that a test can cut and restore: real connection failures,
// no mocks.
import net from 'node:net'

export interface TcpProxy {
  /** The database URL rewritten to go through the proxy. */
  url: string
  /** Refuses new connections and drops the open ones. */
  cut(): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

export async function tcpProxy(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl)
  const sockets = new Set<net.Socket>()
  let server: net.Server | undefined
  let port = 0

  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => {
            client.destroy()
            upstream.destroy()
          })
        }
        client.pipe(upstream).pipe(client)
      })
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (server) server.close(() => resolve())
      else resolve()
      server = undefined
    })

  await listen()
  const url = new URL(databaseUrl)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  return { url: url.toString(), cut: stop, restore: listen, close: stop }
}
