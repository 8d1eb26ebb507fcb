// Standard Webhooks 1.0 signatures (docs/events.md): `v1,` + base64 of HMAC-SHA256 of
// `id.timestamp.body` under the secret's bytes (base64 after `whsec_`). The same bytes as the
// `standardwebhooks` package signs (the tests compare them), by node:crypto's HMAC under a key
// object made once per secret: that package hashes in JavaScript, and node:crypto given the raw
// key bytes imports them again at every signature.
import { createHmac, createSecretKey } from 'node:crypto'

const PREFIX = 'whsec_'

/** Signs with one secret (`whsec_...`): the signature for a message id, its time and its body. */
export function webhookSigner(secret: string): (id: string, at: Date, payload: string) => string {
  const bytes = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
  if (bytes.length === 0) throw new Error("a webhook secret can't be empty")
  const key = createSecretKey(bytes)
  return (id, at, payload) =>
    `v1,${createHmac('sha256', key)
      .update(`${id}.${Math.floor(at.getTime() / 1000)}.${payload}`)
      .digest('base64')}`
}
