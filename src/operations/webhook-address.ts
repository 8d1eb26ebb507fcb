// Where webhooks may go (docs/events.md): never to loopback, private (RFC 1918), carrier-grade NAT,
// link-local (cloud metadata among them), 0.0.0.0/8, IPv6 unique-local, link-local or unspecified
// addresses, nor IPv6 forms of them (IPv4-mapped ones, which node's BlockList matches against the
// IPv4 rules; IPv4-compatible and translated ones; NAT64), unless WEBHOOK_ALLOW_PRIVATE=true.
// Checked when an endpoint is added or updated (its name must resolve then) and again at each
// connection (the lookup the delivery's request makes).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { lookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { BusinessError, Code } from '../errors.ts'
import { message } from '../messages/message.ts'

const refused = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4')
}
// ::/96 holds the unspecified and loopback addresses and the deprecated IPv4-compatible forms
// (::127.0.0.1); ::ffff:0:0:0/96 the IPv4-translated ones; 64:ff9b:1::/48 local-use NAT64.
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6')
}

export function isRefusedAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  if (family === 4) return refused.check(address, 'ipv4')
  const embedded = nat64Embedded(address)
  return refused.check(address, 'ipv6') || (embedded !== undefined && refused.check(embedded, 'ipv4'))
}

/**
 * The IPv4 address a well-known NAT64 address (64:ff9b::/96) stands for, in its last 32 bits: a
 * NAT64 gateway would connect to it. The URL parser writes an IPv6 address in hexadecimal groups.
 */
function nat64Embedded(address: string): string | undefined {
  const [head, tail = ''] = new URL(`http://[${address}]`).hostname.slice(1, -1).split('::')
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)))
  const left = groups(head)
  const right = groups(tail)
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
  if (all[0] !== 0x64 || all[1] !== 0xff9b || all.slice(2, 6).some((group) => group !== 0)) return undefined
  return [all[6] >> 8, all[6] & 255, all[7] >> 8, all[7] & 255].join('.')
}

/** The URL's host without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1')
}

/** 1002 unless the URL is http(s) and (private networks allowed or) every address its host resolves to is public. */
export async function checkWebhookUrl(text: string, allowPrivate: boolean): Promise<void> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new BusinessError(Code.badParameter, message('urlNotUrl', { url: text }))
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BusinessError(Code.badParameter, message('urlScheme'))
  if (url.username || url.password) throw new BusinessError(Code.badParameter, message('urlCredentials'))
  if (url.port === '0') throw new BusinessError(Code.badParameter, message('urlPort'))
  const host = hostOf(url)
  let addresses: string[]
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((found) => found.address)
  } catch {
    throw new BusinessError(Code.badParameter, message('urlUnresolved', { host }))
  }
  if (allowPrivate) return
  const blocked = addresses.find(isRefusedAddress)
  if (blocked !== undefined || addresses.length === 0) {
    throw new BusinessError(Code.badParameter, message('urlPrivate', { host, address: blocked ?? 'no address' }))
  }
}

/** An IP literal host refused at delivery (names are checked by `guardedLookup` as they are connected to). */
export function refusedLiteral(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url)
  return !allowPrivate && isIP(host) !== 0 && isRefusedAddress(host)
}

/** The request's name lookup, refusing every address on a refused network (at connection time). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, '', 0)
      const usable = allowPrivate ? found : found.filter((entry) => !isRefusedAddress(entry.address))
      if (usable.length === 0) {
        return callback(Object.assign(new Error(`${hostname} resolves to a refused network`), { code: 'EREFUSEDNET' }), '', 0)
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable)
      return callback(null, usable[0].address, usable[0].family)
    })
  }
}
