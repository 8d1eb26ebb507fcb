// Which addresses a webhook may not reach: private, loopback and link-local networks in every IPv6
// form that stands for them, and nothing public.
import t from 'tap'
import { isRefusedAddress } from '../../src/operations/webhook-address.ts'

t.test('refused: private networks, directly or embedded in IPv6', async (t) => {
  for (const address of [
    '10.0.0.1',
    '127.0.0.1',
    '169.254.169.254',
    '::1',
    '::',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '::ffff:0:127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::1',
    'fd00::1',
    'fe80::1',
    'not an address',
  ]) {
    t.ok(isRefusedAddress(address), address)
  }
})

t.test('allowed: public addresses, NAT64 of a public one included', async (t) => {
  for (const address of ['8.8.8.8', '::ffff:8.8.8.8', '64:ff9b::808:808', '2606:4700::1111', '2001:4860::8888']) {
    t.notOk(isRefusedAddress(address), address)
  }
})
