// The README's webhook receiver, run as written: it accepts the service's signed deliveries and
// refuses a forged signature and a stale timestamp (401).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Webhook } from 'standardwebhooks'
import t from 'tap'
import { freePort } from '../../scripts/dev/ports.ts'
import { eventually } from '../helpers/eventually.ts'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const readme = readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8')
const section = readme.slice(readme.indexOf('### A webhook receiver in plain Node'))
const code = /```js\n([\s\S]*?)```/.exec(section)?.[1]
if (!code) throw new Error('README.md shows no receiver')

const service = await startService(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
const token = await service.login()
const ok = async (route: string, body: unknown) => {
  const answer = (await service.call(route, body, { token })).body
  if (answer.code !== 0) throw new Error(`${route}: ${answer.code} ${answer.msg}`)
  return answer.data
}

const port = await freePort()
const url = `http://127.0.0.1:${port}/hook`
const { secret } = await ok('/system/webhook/add', { id: 'readme', url, types: ['record.added'] })
const dir = mkdtempSync(path.join(os.tmpdir(), 'readme-receiver-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(path.join(dir, 'receiver.mjs'), code)
const receiver = spawn(process.execPath, [path.join(dir, 'receiver.mjs')], {
  env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
  stdio: ['ignore', 'pipe', 'inherit'],
})
t.teardown(() => void receiver.kill())
let printed = ''
receiver.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()))

const post = (headers: Record<string, string>, body: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then((answer) => answer.status)
const now = () => String(Math.floor(Date.now() / 1000))
await eventually(async () => (await post({}, '{}').catch(() => 0)) === 401, { what: 'the receiver listening' })

t.test('a delivery of the service is accepted and printed', async (t) => {
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-README1'))
  await eventually(() => printed.includes("'RU-README1'"), { what: 'the delivery printed by the receiver' })
  t.match(printed, /type: 'record\.added'/)
  // The attempt is saved once its answer is read: maybe a moment after the receiver printed it.
  const attempt = await eventually(async () => (await ok('/system/webhook/deliveries', { id: 'readme' })).list[0], {
    what: 'the attempt saved',
  })
  t.match(attempt, { type: 'record.added', status: 204, outcome: 'delivered' })
})

t.test('a forged signature and a stale timestamp are refused', async (t) => {
  const body = JSON.stringify({ id: 'forged' })
  const forged = `v1,${Buffer.alloc(32).toString('base64')}`
  t.equal(await post({ 'webhook-id': 'msg_1', 'webhook-timestamp': now(), 'webhook-signature': forged }, body), 401)
  t.equal(await post({ 'webhook-id': 'msg_1', 'webhook-timestamp': now() }, body), 401, 'no signature at all')
  const signed = (at: Date) => ({
    'webhook-id': 'msg_2',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_2', at, body),
  })
  t.equal(await post(signed(new Date(Date.now() - 600_000)), body), 401, 'signed ten minutes ago')
  t.notOk(printed.includes('forged'), 'nothing refused is printed')
  t.equal(await post(signed(new Date()), body), 204, 'the same, signed now')
})
