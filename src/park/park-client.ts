// The enterprise edition's client of the park edition: the typed client generated from the
// document (openapi-fetch), logged in with the configured park account, logging in again on 401.
import createClient from 'openapi-fetch'

import type { components, paths } from '../../generated/openapi.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
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
    let answer = await this.send(resource, items)
    if (answer.status === 401) {
      this.token = undefined
      answer = await this.send(resource, items)
    }
    const body = answer.body
    if (answer.status !== 200 || !body || body.code !== 0 || !body.data) {
      throw new ParkUnavailable(`park answered HTTP ${answer.status}, code ${body?.code ?? '-'}: ${body?.msg ?? 'no envelope'}`)
    }
    return body.data as BatchResult
  }

  /** Pushes one attachment (attachment/add with X-Sync-Push); the park's business answer. Throws ParkUnavailable when it cannot. */
  async pushAttachment(resource: ResourceDef, item: PushItem): Promise<{ code: number; msg: string }> {
    const send = async () => {
      const token = await this.login()
      try {
        const { response, data, error } = await this.client.POST(`/${resource.path}/attachment/add` as '/prevent/riskUnit/attachment/add', {
          body: item as never,
          headers: { authorization: `Bearer ${token}`, 'x-sync-push': '1' },
          signal: AbortSignal.timeout(this.timeoutMs),
        })
        return { status: response.status, body: (data ?? error) as { code: number; msg: string } | undefined }
      } catch (error) {
        throw new ParkUnavailable(`park unreachable: ${(error as Error).message}`)
      }
    }
    let answer = await send()
    if (answer.status === 401) {
      this.token = undefined
      answer = await send()
    }
    const body = answer.body
    // A business refusal (HTTP 200) is the attachment's; anything else is the park's trouble.
    if (answer.status !== 200 || !body) {
      throw new ParkUnavailable(`park answered HTTP ${answer.status}, code ${body?.code ?? '-'}: ${body?.msg ?? 'no envelope'}`)
    }
    return { code: body.code, msg: body.msg }
  }

  private async send(
    resource: ResourceDef,
    items: PushItem[],
  ): Promise<{ status: number; body: { code: number; msg: string; data: unknown } | undefined }> {
    const token = await this.login()
    try {
      // The path is the resource's add-batch; its items are records with versions (X-Sync-Push).
      const { response, data, error } = await this.client.POST(`/${resource.path}/add-batch` as '/prevent/riskUnit/add-batch', {
        body: { list: items } as never,
        headers: { authorization: `Bearer ${token}`, 'x-sync-push': '1' },
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
