// Where webhooks may go (docs/events.md): never to loopback, private (RFC 1918), carrier-grade NAT,
// link-local (cloud metadata among them), 0.0.0.0/8, IPv6 unique-local, link-local or unspecified
// addresses, nor IPv4-mapped IPv6 forms of them (node's BlockList matches those against the IPv4
// rules), unless WEBHOOK_ALLOW_PRIVATE=true. Checked when an endpoint is added or updated (its name
// must resolve then) and again at each connection (the lookup the delivery's request makes).
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
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6')
}

export function isRefusedAddress(address: string): boolean {
  const family = isIP(address)
  return family === 0 || refused.check(address, family === 4 ? 'ipv4' : 'ipv6')
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
