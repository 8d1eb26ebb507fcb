// A webhook receiver on loopback for tests: records every delivery (headers, raw body), answers
// as the test decides (a status, or never), and verifies Standard Webhooks 1.0 signatures with an
// implementation of its own written from the specification's text (not the service's library).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  id: string
  timestamp: string
  signatures: string[]
  body: string
  event: any
}

/** What the receiver answers a delivery: a status, or `hang` (no answer at all). */
export type Reply = number | 'hang'

export interface Receiver {
  url: string
  received: Received[]
  /** Decides the answer to each delivery (default 204). */
  answer: (delivery: Received) => Reply
  close(): Promise<void>
}

/**
 * Whether one of the space-separated `v1,` signatures is the base64 HMAC-SHA256 of
 * `id.timestamp.body` under the secret (base64 after its `whsec_` prefix), compared in constant time.
 */
export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  return header.split(' ').some((signature) => {
    const [version, value] = signature.split(',', 2)
    const given = Buffer.from(value ?? '', 'base64')
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

export async function startReceiver(t: { after(fn: () => unknown): void }): Promise<Receiver> {
  const hanging = new Set<ServerResponse>()
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 204,
    close: async () => {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const delivery: Received = {
      id: String(request.headers['webhook-id']),
      timestamp: String(request.headers['webhook-timestamp']),
      signatures: String(request.headers['webhook-signature']).split(' '),
      body,
      event: JSON.parse(body),
    }
    receiver.received.push(delivery)
    const reply = receiver.answer(delivery)
    if (reply === 'hang') {
      hanging.add(response)
      return
    }
    response.statusCode = reply
    response.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  t.after(() => receiver.close())
  return receiver
}
