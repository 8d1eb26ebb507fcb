// The enterprise edition's client of the park edition: the integrators' SDK (sdk/client.ts: the typed
// client generated from the document, with its session), logged in with the configured park account.
// It pushes through the park's push operations (/system/push/records, /system/push/attachment) and
// reads its digests (/system/sync/digest).
import type { components } from '../../generated/openapi.ts'
import { loadOpenApi } from '../contract/openapi-document.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import { createSafetyClient, type SafetyClient } from '../sdk/client.ts'
import type { AttachmentPushItem } from '../store/attachment-store.ts'
import type { Bucket, HeldVersion } from '../store/park-store.ts'
import type { PushedFact, PushedFactKind } from '../store/pushed-facts.ts'
import type { PushItem } from '../store/sync-store.ts'

export type PushResult = components['schemas']['PushResult']
type DigestRequest = components['schemas']['DigestRequest']
type DigestData = NonNullable<components['schemas']['DigestEnvelope']['data']>
type ReconciledKind = components['schemas']['ReconciledKind']
type PushedKind = components['schemas']['PushedKind']
type PushedMinute = components['schemas']['PushedMinute']
type MinutesPushResult = components['schemas']['PushReadingsResult']

/** What reconciliation compares: the records of a pushed kind (a resource, alarms, a supervision fact), or its attachments. */
export interface DigestTarget {
  key: string
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

const { schemas } = loadOpenApi().document.components
/** What the document lets a push carry as records (PushedKind: the resources, and alarms). */
const PUSHED_KINDS = new Set<string>((schemas.PushedKind?.enum as string[] | undefined) ?? [])

function isPushedKind(key: string): key is PushedKind {
  return PUSHED_KINDS.has(key)
}

/** A pushed kind's key as the document's PushedKind (every kind the push carries is one of them). */
function resourceKey(resource: ResourceDef): PushedKind {
  if (!isPushedKind(resource.key)) throw new Error(`the document pushes no ${resource.key}`)
  return resource.key
}

const SUPERVISION_PUSH_KEYS: ReadonlySet<string> = new Set(
  (loadOpenApi().document.components.schemas.SupervisionPushKey?.enum ?? []) as string[],
)

/** A fact kind's key as the document's SupervisionPushKey. */
function supervisionPushKey(key: string): components['schemas']['SupervisionPushKey'] {
  if (!SUPERVISION_PUSH_KEYS.has(key)) throw new Error(`the document has no pushed kind ${key}`)
  return key as components['schemas']['SupervisionPushKey']
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
  /**
   * The park refused the account itself, not what was pushed (its password, its role not allowed
   * to push: 401 or 403 on a whole call): a configuration fault, the records wait for it to be fixed.
   */
  readonly accountRefused: boolean

  constructor(message: string, reasons: { unreachable: boolean; accountRefused?: boolean }) {
    super(message)
    this.unreachable = reasons.unreachable
    this.accountRefused = reasons.accountRefused ?? false
  }

  /** The call went out and got no answer. */
  static unreached(error: unknown): ParkUnavailable {
    return new ParkUnavailable(`park unreachable: ${error instanceof Error ? error.message : String(error)}`, { unreachable: true })
  }

  /** The park (or what stands for it) answered, but not with what was asked. */
  static answered(status: number, body: { code: number; msg: string } | undefined): ParkUnavailable {
    return new ParkUnavailable(`park answered HTTP ${status}, code ${body?.code ?? '-'}: ${body?.msg ?? 'no envelope'}`, {
      unreachable: GATEWAY_FAILURES.has(status),
      accountRefused: status === 401 || status === 403,
    })
  }
}

/** Answers of a gateway that could not reach the park, or of a park not serving yet. */
const GATEWAY_FAILURES = new Set([502, 503, 504])

/** Code of a login whose user name or password the park refused. */
const LOGIN_FAILED = 2004

export class ParkClient implements ParkHoldings {
  private readonly baseUrl: string
  private readonly client: SafetyClient
  private readonly userName: string
  private readonly password: string
  /** The log-in under way or done; undefined when the next call must log in (the first, or after its tokens were refused). */
  private session: Promise<void> | undefined

  constructor(options: { url: string; userName: string; password: string; timeoutMs: number }) {
    this.baseUrl = options.url.replace(/\/$/, '')
    const { timeoutMs } = options
    // Every call to the park, log-in and refresh included, gives up after timeoutMs.
    this.client = createSafetyClient({
      baseUrl: this.baseUrl,
      fetch: (request) => fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) }),
    })
    this.userName = options.userName
    this.password = options.password
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

  /** Pushes a page of one resource's records; the park answers per item. Throws ParkUnavailable when it did not judge them. */
  async push(resource: ResourceDef, items: PushItem[]): Promise<PushResult> {
    return this.judged(
      await this.withSession(() => this.client.POST('/system/push/records', { body: { resource: resourceKey(resource), list: items } })),
    )
  }

  /** Pushes one-minute aggregates of readings; the park answers how many it applied and which it refused. Throws ParkUnavailable when it did not judge them. */
  async pushReadings(list: PushedMinute[]): Promise<MinutesPushResult> {
    return this.judged(await this.withSession(() => this.client.POST('/system/push/readings', { body: { list } })))
  }

  /** Pushes a page of one kind of fact through the records' push (its key as the `resource`); answered like records. */
  async pushFacts(kind: PushedFactKind, items: PushedFact[]): Promise<PushResult> {
    const resource = supervisionPushKey(kind.key)
    // Each item is one of the document's pushed facts of that kind (the store reads them so).
    const list = items as unknown as components['schemas']['PushRecordsRequest']['list']
    return this.judged(await this.withSession(() => this.client.POST('/system/push/records', { body: { resource, list } })))
  }

  /**
   * Pushes one attachment: the park's judgement of it, its refusal (a business code) or the version
   * it holds now (`held`, absent when it did not say). Throws ParkUnavailable when the park did not
   * judge it.
   */
  async pushAttachment(resource: ResourceDef, item: AttachmentPushItem): Promise<AttachmentPushAnswer> {
    const answer = await this.withSession(() =>
      this.client.POST('/system/push/attachment', { body: { resource: resourceKey(resource), ...item } }),
    )
    // A body the park refuses as such (400/1002 not a pushed attachment, 413/1010 too large) is the attachment's own fault.
    const refused = envelopeOf(answer.error)
    if (refused && (answer.response.status === 400 || answer.response.status === 413)) return refused
    const { failed, held } = this.judged(answer)
    if (failed[0]) return { code: failed[0].code, msg: failed[0].reason }
    return { code: 0, msg: '', held: held[0]?.version }
  }

  /** The park's digests of this enterprise's records (or attachments) in these buckets (reconciliation). */
  async digests(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<Bucket[]> {
    const data = await this.digest({ ...this.digestOf(target), companyCode, prefixes, records: false })
    if (!('buckets' in data)) throw new ParkUnavailable('park answered records where digests were asked for', { unreachable: false })
    return data.buckets
  }

  /** The (id, version, deleted) the park holds of them in these buckets. */
  async held(target: DigestTarget, companyCode: string, prefixes: string[]): Promise<HeldVersion[]> {
    const data = await this.digest({ ...this.digestOf(target), companyCode, prefixes, records: true })
    if (!('records' in data)) throw new ParkUnavailable('park answered digests where records were asked for', { unreachable: false })
    return data.records
  }

  private digestOf(target: DigestTarget): { resource: ReconciledKind; attachments: boolean } {
    const { key } = target
    return { resource: isPushedKind(key) ? key : supervisionPushKey(key), attachments: target.attachments }
  }

  private async digest(request: DigestRequest): Promise<DigestData> {
    return this.judged(await this.withSession(() => this.client.POST('/system/sync/digest', { body: request })))
  }

  /** The data of an answer of code 0; any other answer is the whole call's failure. */
  private judged<Data>(answer: { data?: { code: number; msg: string; data: Data | null }; error?: unknown; response: Response }): Data {
    const { data, response } = answer
    if (response.status === 200 && data?.code === 0 && data.data) return data.data
    throw ParkUnavailable.answered(response.status, envelopeOf(data ?? answer.error))
  }

  /**
   * Logs in ahead of a push (an edition starting with a backlog): the park's check of the password
   * runs while the first page is read. A failure is left to the push's own log-in.
   */
  async logInAhead(): Promise<void> {
    await this.ensureSession().catch(() => undefined)
  }

  /**
   * A call with a session, the one place that keeps it: a log-in first when there is none; a token
   * expired or revoked is refreshed by the SDK, which sends the call again; a call still answered
   * 401 (the refresh refused too: the account's tokens ended) logs in again and is sent once more.
   */
  private async withSession<Answer extends { response: Response }>(call: () => Promise<Answer>): Promise<Answer> {
    await this.ensureSession()
    const answer = await reach(call)
    if (answer.response.status !== 401) return answer
    this.session = undefined
    await this.ensureSession()
    return reach(call)
  }

  /** Logs in when there is no session: the calls that ask at once share one log-in; a failed one is forgotten. */
  private ensureSession(): Promise<void> {
    this.session ??= this.logIn().catch((error: unknown) => {
      this.session = undefined
      throw error
    })
    return this.session
  }

  private async logIn(): Promise<void> {
    const { data, error, response } = await reach(() => this.client.login(this.userName, this.password))
    if (data?.code === 0) return
    const { status } = response
    throw new ParkUnavailable(`park login refused: HTTP ${status}, ${data?.msg ?? error?.msg ?? ''}`, {
      unreachable: GATEWAY_FAILURES.has(status),
      accountRefused: data?.code === LOGIN_FAILED || status === 401 || status === 403,
    })
  }
}

/** The call's answer; a call that got none (no connection, a timeout) throws ParkUnavailable. */
async function reach<Answer>(call: () => Promise<Answer>): Promise<Answer> {
  try {
    return await call()
  } catch (error) {
    throw ParkUnavailable.unreached(error)
  }
}

/** An answer's envelope, when it is one (the park's answers are; a proxy's may not be). */
function envelopeOf(answer: unknown): { code: number; msg: string } | undefined {
  if (typeof answer !== 'object' || answer === null || !('code' in answer) || !('msg' in answer)) return undefined
  const { code, msg } = answer
  return typeof code === 'number' && typeof msg === 'string' ? { code, msg } : undefined
}
