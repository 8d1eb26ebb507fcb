// What reconciliation reads of the park (enterprise edition): `/system/sync/digest` through the
// typed client generated from the document, for a resource's records or its attachments, logged in
// with the configured park account (logging in again on 401). Separate from the push's ParkClient:
// reconciliation runs rarely (daily, on demand) and keeps its own session.
import createClient from 'openapi-fetch'
import type { components, paths } from '../../generated/openapi.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { Bucket, HeldVersion } from '../store/park-store.ts'
import { ParkUnavailable } from './park-client.ts'

type DigestRequest = components['schemas']['DigestRequest']
type DigestData = NonNullable<components['schemas']['DigestEnvelope']['data']>
type ResourceKey = components['schemas']['ResourceKey']

/** What is compared: a resource's records, or its attachments. */
export interface DigestTarget {
  resource: ResourceDef
  attachments: boolean
}

/** The park's side of a reconciliation. */
export interface ParkHoldings {
  /** The park's digests of this enterprise's records (or attachments) in these buckets. */
  digests(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<Bucket[]>
  /** The (id, version, deleted) the park holds of them in these buckets. */
  held(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<HeldVersion[]>
}

export class ParkDigests implements ParkHoldings {
  private readonly client: ReturnType<typeof createClient<paths>>
  private readonly userName: string
  private readonly password: string
  private readonly timeoutMs: number
  private readonly resourceKeys: ReadonlySet<string>
  private token: string | undefined

  constructor(options: { url: string; userName: string; password: string; timeoutMs: number; resourceKeys: Iterable<string> }) {
    this.client = createClient<paths>({ baseUrl: options.url.replace(/\/$/, '') })
    this.userName = options.userName
    this.password = options.password
    this.timeoutMs = options.timeoutMs
    this.resourceKeys = new Set(options.resourceKeys)
  }

  async digests(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<Bucket[]> {
    const request = { resource: this.keyOf(target.resource), attachments: target.attachments, companyCode, prefixes, records: false }
    const data = await this.digest(request)
    if (!('buckets' in data)) throw new ParkUnavailable('park answered records where digests were asked for')
    return data.buckets
  }

  async held(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<HeldVersion[]> {
    const request = { resource: this.keyOf(target.resource), attachments: target.attachments, companyCode, prefixes, records: true }
    const data = await this.digest(request)
    if (!('records' in data)) throw new ParkUnavailable('park answered digests where records were asked for')
    return data.records
  }

  /** A registry resource's key as the document's ResourceKey (the registry is read from the document). */
  private keyOf(resource: ResourceDef): ResourceKey {
    const { key } = resource
    if (!this.isResourceKey(key)) throw new Error(`the document has no resource ${key}`)
    return key
  }

  private isResourceKey(key: string): key is ResourceKey {
    return this.resourceKeys.has(key)
  }

  private async digest(request: DigestRequest): Promise<DigestData> {
    let answer = await this.send(request)
    if (answer.status === 401) {
      this.token = undefined
      answer = await this.send(request)
    }
    const { status, body } = answer
    if (status !== 200 || !body || body.code !== 0 || !body.data) {
      throw new ParkUnavailable(`park answered HTTP ${status}, code ${body?.code ?? '-'}: ${body?.msg ?? 'no envelope'}`)
    }
    return body.data
  }

  private async send(request: DigestRequest) {
    const token = await this.login()
    try {
      const { response, data, error } = await this.client.POST('/system/sync/digest', {
        body: request,
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      return { status: response.status, body: data ?? envelopeOf(error) }
    } catch (error) {
      throw new ParkUnavailable(`park unreachable: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  private async login(): Promise<string> {
    if (this.token) return this.token
    const answer = await this.client
      .POST('/system/login', {
        body: { userName: this.userName, password: this.password },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      .catch((error: Error) => {
        throw new ParkUnavailable(`park unreachable: ${error.message}`)
      })
    const token = answer.data?.data?.token
    if (!token)
      throw new ParkUnavailable(`park login refused: HTTP ${answer.response.status}, ${answer.data?.msg ?? answer.error?.msg ?? ''}`)
    this.token = token
    return token
  }
}

/** An error answer's envelope, when it is one (the park's 4xx/5xx answers are; a proxy's may not be). */
function envelopeOf(answer: unknown): { code: number; msg: string; data?: undefined } | undefined {
  if (typeof answer !== 'object' || answer === null || !('code' in answer) || !('msg' in answer)) return undefined
  const { code, msg } = answer
  return typeof code === 'number' && typeof msg === 'string' ? { code, msg } : undefined
}
