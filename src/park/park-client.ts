// The enterprise edition's client of the park edition: the typed client generated from the document
// (openapi-fetch), logged in with the configured park account, logging in again on 401.
import createClient from 'openapi-fetch'
import type { components, paths } from '../../generated/openapi.ts'
import { listOperations, loadOpenApi } from '../contract/openapi-document.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { AttachmentPushItem } from '../store/attachment-store.ts'
import type { Bucket, HeldVersion } from '../store/park-store.ts'
import type { PushItem } from '../store/sync-store.ts'

type BatchResult = components['schemas']['BatchResult']
type DigestRequest = components['schemas']['DigestRequest']
type DigestData = NonNullable<components['schemas']['DigestEnvelope']['data']>
type ResourceKey = components['schemas']['ResourceKey']
/** What reconciliation compares: a resource's records, or its attachments. */
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

/** The park's judgement of a pushed attachment: refused with a business code, or the version it holds now (when it said). */
export interface AttachmentPushAnswer {
  code: number
  msg: string
  held?: number | null
}

/** An error answer: no data. */
type ErrorEnvelope = { code: number; msg: string; data?: undefined }

/** The add-batch operations of the document. */
/** The resources' add-batch paths (readings' add-batch is not a resource's: nothing pushes to it). */
type AddBatchPath = Exclude<Extract<keyof paths, `/${string}/add-batch`>, '/hazard/monitorData/add-batch'>

/**
 * add-batch with X-Sync-Push, as the document describes it (the header's description): the same
 * operations, answering the same, whose `list` holds records as the enterprise holds them.
 */
type PushPaths = {
  [Path in AddBatchPath]: {
    post: Omit<paths[Path]['post'], 'requestBody'> & { requestBody: { content: { 'application/json': { list: PushItem[] } } } }
  }
}

/** The document's add-batch paths, to tell a resource's path is one of them. */
const ADD_BATCH_PATHS = new Set(
  listOperations(loadOpenApi().document)
    .filter(({ spec }) => spec['x-action'] === 'addBatch')
    .map(({ path }) => path),
)

const RESOURCE_KEYS = new Set(
  listOperations(loadOpenApi().document).flatMap(({ spec }) => (typeof spec['x-resource'] === 'string' ? [spec['x-resource']] : [])),
)

function isResourceKey(key: string): key is ResourceKey {
  return RESOURCE_KEYS.has(key)
}

/** A registry resource's key as the document's ResourceKey (every registry entry is one of the document's resources). */
function resourceKey(resource: ResourceDef): ResourceKey {
  if (!isResourceKey(resource.key)) throw new Error(`the document has no resource ${resource.key}`)
  return resource.key
}

function isAddBatchPath(path: string): path is AddBatchPath {
  return ADD_BATCH_PATHS.has(path)
}

/** The attachment/add operations of the document: a pushed attachment is their body with the push-only fields set. */
type AttachmentAddPath = Exclude<Extract<keyof paths, `/${string}/attachment/add`>, '/hazard/monitorAlarm/attachment/add'>

const ATTACHMENT_ADD_PATHS = new Set(
  listOperations(loadOpenApi().document)
    .filter(({ spec }) => spec['x-action'] === 'attachmentAdd')
    .map(({ path }) => path),
)

function isAttachmentAddPath(path: string): path is AttachmentAddPath {
  return ATTACHMENT_ADD_PATHS.has(path)
}

/**
 * A call to the park failed. `unreachable` when nothing answered for the park: no connection
 * (refused, reset, timed out) or a gateway in front of it answering for it (502, 503, 504); the
 * push then watches for the park to come back (park-probe.ts). Otherwise the park answered, and
 * refused or failed.
 */
export class ParkUnavailable extends Error {
  override name = 'ParkUnavailable'
  readonly unreachable: boolean

  constructor(message: string, unreachable: boolean) {
    super(message)
    this.unreachable = unreachable
  }

  /** The call went out and got no answer. */
  static unreached(error: unknown): ParkUnavailable {
    return new ParkUnavailable(`park unreachable: ${error instanceof Error ? error.message : String(error)}`, true)
  }

  /** The park (or what stands for it) answered, but not with what was asked. */
  static answered(status: number, body: { code: number; msg: string } | undefined): ParkUnavailable {
    return new ParkUnavailable(
      `park answered HTTP ${status}, code ${body?.code ?? '-'}: ${body?.msg ?? 'no envelope'}`,
      GATEWAY_FAILURES.has(status),
    )
  }
}

/** Answers of a gateway that could not reach the park, or of a park not serving yet. */
const GATEWAY_FAILURES = new Set([502, 503, 504])

export class ParkClient implements ParkHoldings {
  private readonly baseUrl: string
  private readonly client: ReturnType<typeof createClient<paths>>
  private readonly pushClient: ReturnType<typeof createClient<PushPaths>>
  private readonly userName: string
  private readonly password: string
  private readonly timeoutMs: number
  private token: string | undefined
  private loggingIn: Promise<string> | undefined

  constructor(options: { url: string; userName: string; password: string; timeoutMs: number }) {
    this.baseUrl = options.url.replace(/\/$/, '')
    this.client = createClient<paths>({ baseUrl: this.baseUrl })
    this.pushClient = createClient<PushPaths>({ baseUrl: this.baseUrl })
    this.userName = options.userName
    this.password = options.password
    this.timeoutMs = options.timeoutMs
  }

  /**
   * Whether the park answers its liveness check (GET /health/live: no login, no database) within
   * `timeoutMs`. Never throws: anything but a 2xx answer is "not reachable".
   */
  async reachable(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    try {
      const response = await fetch(`${this.baseUrl}/health/live`, { signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) })
      // Read to the end: the connection goes back to the pool instead of lingering.
      await response.arrayBuffer()
      return response.ok
    } catch {
      return false
    }
  }

  /** Pushes records of one resource; the park answers per item. Throws ParkUnavailable when it cannot. */
  async push(resource: ResourceDef, items: PushItem[]): Promise<BatchResult> {
    const path = `/${resource.path}/add-batch`
    if (!isAddBatchPath(path)) throw new Error(`the document has no ${path}`)
    let answer = await this.send(path, items)
    if (answer.status === 401) {
      this.token = undefined
      answer = await this.send(path, items)
    }
    const { status, body } = answer
    if (status !== 200 || !body || body.code !== 0 || !body.data) {
      throw ParkUnavailable.answered(status, body)
    }
    return body.data
  }

  /** The park's digests of this enterprise's records (or attachments) in these buckets (reconciliation). */
  async digests(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<Bucket[]> {
    const data = await this.digest({ ...this.digestOf(target), companyCode, prefixes, records: false })
    if (!('buckets' in data)) throw new ParkUnavailable('park answered records where digests were asked for', false)
    return data.buckets
  }

  /** The (id, version, deleted) the park holds of them in these buckets. */
  async held(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<HeldVersion[]> {
    const data = await this.digest({ ...this.digestOf(target), companyCode, prefixes, records: true })
    if (!('records' in data)) throw new ParkUnavailable('park answered digests where records were asked for', false)
    return data.records
  }

  private digestOf(target: DigestTarget): { resource: ResourceKey; attachments: boolean } {
    return { resource: resourceKey(target.resource), attachments: target.attachments }
  }

  private async digest(request: DigestRequest): Promise<DigestData> {
    let answer = await this.sendDigest(request)
    if (answer.status === 401) {
      this.token = undefined
      answer = await this.sendDigest(request)
    }
    const { status, body } = answer
    if (status !== 200 || !body || body.code !== 0 || !body.data) {
      throw ParkUnavailable.answered(status, body)
    }
    return body.data
  }

  private async sendDigest(request: DigestRequest) {
    const token = await this.login()
    try {
      const { response, data, error } = await this.client.POST('/system/sync/digest', {
        body: request,
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      return { status: response.status, body: data ?? envelopeOf(error) }
    } catch (error) {
      throw ParkUnavailable.unreached(error)
    }
  }

  /**
   * Pushes one attachment (attachment/add with X-Sync-Push): the park's judgement of it, its refusal
   * (a business code) or the version it holds now (`held`, absent when it did not say). Throws
   * ParkUnavailable when the park did not judge it.
   */
  async pushAttachment(resource: ResourceDef, item: AttachmentPushItem): Promise<AttachmentPushAnswer> {
    const path = `/${resource.path}/attachment/add`
    if (!isAttachmentAddPath(path)) throw new Error(`the document has no ${path}`)
    let answer = await this.sendAttachment(path, item)
    if (answer.status === 401) {
      this.token = undefined
      answer = await this.sendAttachment(path, item)
    }
    const { status, body } = answer
    if (body && status === 200 && body.code === 0) return { code: 0, msg: body.msg, held: body.data?.held }
    // A business refusal is the attachment's, whatever its HTTP status (2003 answers 403, 1010 413):
    // the park judged it. No envelope, the park's own failures (5xx), its rate limit (429) and a
    // login it keeps refusing (401) are the park's trouble: not delivered.
    if (body && body.code !== 0 && status < 500 && status !== 401 && status !== 429) return { code: body.code, msg: body.msg }
    throw ParkUnavailable.answered(status, body)
  }

  private async sendAttachment(path: AttachmentAddPath, item: AttachmentPushItem) {
    const token = await this.login()
    try {
      const { response, data, error } = await this.client.POST(path, {
        body: item,
        headers: { authorization: `Bearer ${token}`, 'x-sync-push': '1' },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      return { status: response.status, body: data ?? envelopeOf(error) }
    } catch (error) {
      throw ParkUnavailable.unreached(error)
    }
  }

  private async send(path: AddBatchPath, items: PushItem[]) {
    const token = await this.login()
    try {
      const { response, data, error } = await this.pushClient.POST(path, {
        body: { list: items },
        headers: { authorization: `Bearer ${token}`, 'x-sync-push': '1' },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      return { status: response.status, body: data ?? envelopeOf(error) }
    } catch (error) {
      throw ParkUnavailable.unreached(error)
    }
  }

  /**
   * Logs in ahead of a push (an edition starting with a backlog): the park's check of the password
   * runs while the first page is read. A failure is left to the push's own login.
   */
  async logInAhead(): Promise<void> {
    await this.login().catch(() => undefined)
  }

  /** The token, logging in when there is none: pages pushed at once share one login. */
  private async login(): Promise<string> {
    if (this.token) return this.token
    this.loggingIn ??= this.logIn().finally(() => (this.loggingIn = undefined))
    return this.loggingIn
  }

  private async logIn(): Promise<string> {
    const answer = await this.client
      .POST('/system/login', {
        body: { userName: this.userName, password: this.password },
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      .catch((error: unknown) => {
        throw ParkUnavailable.unreached(error)
      })
    const token = answer.data?.data?.token
    const { status } = answer.response
    if (!token)
      throw new ParkUnavailable(
        `park login refused: HTTP ${status}, ${answer.data?.msg ?? answer.error?.msg ?? ''}`,
        GATEWAY_FAILURES.has(status),
      )
    this.token = token
    return token
  }
}

/** An error answer's envelope, when it is one (the park's 4xx/5xx answers are; a proxy's may not be). */
function envelopeOf(answer: unknown): ErrorEnvelope | undefined {
  if (typeof answer !== 'object' || answer === null || !('code' in answer) || !('msg' in answer)) return undefined
  const { code, msg } = answer
  return typeof code === 'number' && typeof msg === 'string' ? { code, msg } : undefined
}
