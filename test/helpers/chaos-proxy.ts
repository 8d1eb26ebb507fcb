// An HTTP proxy in front of the park that, while chaos is on, answers errors, drops connections or
// never answers, at random: the park failing in every way a network can. While down, it answers 502
// to everything, as a gateway does for a park it cannot reach.
import http from 'node:http'
import type net from 'node:net'

export interface ChaosProxy {
  url: string
  chaos: boolean
  down: boolean
  /** Every request by path (without the query), whatever was done to it. */
  requests: Map<string, number>
  /** Requests seen while chaos was on, by what was done to them. */
  counts: { forwarded: number; failed: number; hung: number; dropped: number }
  close(): Promise<void>
}

export async function chaosProxy(target: string): Promise<ChaosProxy> {
  const sockets = new Set<net.Socket>()
  const proxy: ChaosProxy = {
    url: '',
    chaos: false,
    down: false,
    requests: new Map(),
    counts: { forwarded: 0, failed: 0, hung: 0, dropped: 0 },
    close: async () => {},
  }
  const forward = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const upstream = http.request(target + request.url, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers)
      answer.pipe(response)
    })
    upstream.on('error', () => response.destroy())
    request.pipe(upstream)
  }
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    proxy.requests.set(path, (proxy.requests.get(path) ?? 0) + 1)
    if (proxy.down) {
      request.resume()
      return void response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway')
    }
    if (!proxy.chaos) return forward(request, response)
    const roll = Math.random()
    if (roll < 0.25) {
      proxy.counts.forwarded++
      forward(request, response)
    } else if (roll < 0.5) {
      proxy.counts.failed++
      request.resume()
      response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway')
    } else if (roll < 0.75) {
      proxy.counts.hung++
      request.resume() // never answered: the client's timeout must end it
    } else {
      proxy.counts.dropped++
      request.socket.destroy()
    }
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  proxy.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  return proxy
}
