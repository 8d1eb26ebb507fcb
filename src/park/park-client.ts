// The enterprise edition's client of the park edition: the typed client generated from the
// document (openapi-fetch), logged in with the configured park account, logging in again on 401.
import createClient from 'openapi-fetch'

import type { components, paths } from '../../generated/openapi.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { Bucket, HeldVersion } from '../store/park-store.ts'
import type { PushItem } from '../store/sync-store.ts'

type BatchResult = components['schemas']['BatchResult']

export class ParkUnavailable extends Error {
  override name = 'ParkUnavailable'
}

export class ParkClient {
  private readonly client: ReturnType<typeof createClient<paths>>
  private readonly userName: string
  private readonly password: string
  private readonly timeoutMs: number
  private token: string | undefined

  constructor(options: { url: string; userName: string; password: string; timeoutMs: number }) {
    this.client = createClient<paths>({ baseUrl: options.url.replace(/\/$/, '') })
    this.userName = options.userName
    this.password = options.password
    this.timeoutMs = options.timeoutMs
  }

  /** Pushes records of one resource; the park answers per item. Throws ParkUnavailable when it cannot. */
  async push(resource: ResourceDef, items: PushItem[]): Promise<BatchResult> {
    // The path is the resource's add-batch; its items are records with versions (X-Sync-Push).
    return (await this.call(`/${resource.path}/add-batch`, { list: items }, { 'x-sync-push': '1' })) as BatchResult
  }

  /** The park's digests of this enterprise's records in these buckets (reconciliation). */
  async digests(resource: ResourceDef, companyCode: string, prefixes: string[]): Promise<Bucket[]> {
    const data = (await this.call('/system/sync/digest', { resource: resource.key, companyCode, prefixes })) as { buckets: Bucket[] }
    return data.buckets
  }

  /** The (id, version, deleted) the park holds of this enterprise's records in these buckets. */
  async held(resource: ResourceDef, companyCode: string, prefixes: string[]): Promise<HeldVersion[]> {
    const data = (await this.call('/system/sync/digest', { resource: resource.key, companyCode, prefixes, records: true })) as {
      records: HeldVersion[]
    }
    return data.records
  }

  /** One call to the park, logging in again once on 401; anything but a success is ParkUnavailable. */
  private async call(path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    let answer = await this.send(path, body, headers)
    if (answer.status === 401) {
      this.token = undefined
      answer = await this.send(path, body, headers)
    }
    const envelope = answer.body
    if (answer.status !== 200 || !envelope || envelope.code !== 0 || !envelope.data) {
      throw new ParkUnavailable(`park answered HTTP ${answer.status}, code ${envelope?.code ?? '-'}: ${envelope?.msg ?? 'no envelope'}`)
    }
    return envelope.data
  }

  private async send(
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: { code: number; msg: string; data: unknown } | undefined }> {
    const token = await this.login()
    try {
      const { response, data, error } = await this.client.POST(path as '/prevent/riskUnit/add-batch', {
        body: body as never,
        headers: { authorization: `Bearer ${token}`, ...headers },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      return { status: response.status, body: (data ?? error) as never }
    } catch (error) {
      throw new ParkUnavailable(`park unreachable: ${(error as Error).message}`)
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
