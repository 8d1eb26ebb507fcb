// Reconciliation (enterprise edition): finds every difference between what the
// enterprise holds (live records and tombstones, by id and version) and what the park holds for its
// companyCode, and pushes those records again; likewise the alarms, the supervision facts (zone,
// calendar years, inspection periods: rows with the push state of records, keyed by their pushed id)
// and each resource's and the alarms' attachments (pushed like records, so an attachment the park
// lost is pushed again with its bytes).
//
// Cheap when nothing differs: per kind and per kind's attachments, one digest of everything on each side (a count and an
// order-independent sum over (id, version, deleted), computed by the database; no record shipped).
// Where the digests differ, the ids are split into 16 buckets by the next hex digit of md5(id), and
// only the differing buckets are split further, until a bucket holds few enough records to list
// their (id, version, deleted) on both sides and compare them.
// Records still pending on the enterprise are on their way and do not count as differences.
import type pg from 'pg'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { attachmentTarget } from '../store/attachment-store.ts'
import type { Bucket, HeldVersion, ParkStore } from '../store/park-store.ts'
import { PUSHED_FACTS } from '../store/pushed-facts.ts'
import type { SyncStore, SyncTable } from '../store/sync-store.ts'
import type { DigestTarget, ParkHoldings } from './park-client.ts'

/** A bucket holding at most this many records (on either side) is listed instead of split. */
const LEAF_RECORDS = 1000
/** Records listed per digest call (the park's limit is higher). */
const LIST_RECORDS = 4000
/** Prefixes per digest call. */
const PREFIXES_PER_CALL = 4096
const HEX = '0123456789abcdef'
const SETTING = 'sync_reconcile_last'

/** What differs for one kind's records (a resource's, the alarms', a fact's), or for its attachments (then the ids are attachment ids). */
export interface ResourceDifferences {
  resource: string
  /** Records (tombstones included) on each side. */
  enterprise: number
  park: number
  /** Held by the enterprise, absent on the park. */
  missing: number
  /** Held on both sides at another version, or deleted on one side only. */
  stale: number
  /** Held on the park for this enterprise, unknown to the enterprise (cannot be pushed again). */
  parkOnly: number
  /** Ids of the differing records, up to the limit. */
  ids: string[]
}

export interface ReconcileResult {
  time: string
  /** Differences found (missing + stale + parkOnly, every kind, records and attachments). */
  differences: number
  /** Records and attachments marked pending to be pushed again. */
  repushed: number
  /** Why the run did not complete (the park unreachable, say); null when it did. */
  error: string | null
  /** Per kind (the resources, the alarms, the facts), its records. */
  resources: ResourceDifferences[]
  /** Per resource, its attachments. */
  attachments: ResourceDifferences[]
}

export class Reconciler {
  private readonly pool: pg.Pool
  private readonly registry: ResourceRegistry
  private readonly digests: ParkStore
  private readonly sync: SyncStore
  private readonly client: ParkHoldings
  private readonly companyCode: string
  private readonly wake: () => void

  constructor(options: {
    pool: pg.Pool
    registry: ResourceRegistry
    digests: ParkStore
    sync: SyncStore
    client: ParkHoldings
    companyCode: string
    wake: () => void
  }) {
    this.pool = options.pool
    this.registry = options.registry
    this.digests = options.digests
    this.sync = options.sync
    this.client = options.client
    this.companyCode = options.companyCode
    this.wake = options.wake
  }

  /** One reconciliation; its result is kept as the last one (also when it failed). */
  async run(limit = 100): Promise<ReconcileResult> {
    const result: ReconcileResult = {
      time: new Date().toISOString(),
      differences: 0,
      repushed: 0,
      error: null,
      resources: [],
      attachments: [],
    }
    // Records and alarms first, then the facts naming them, then attachments: in the push's order.
    const compared: { target: DigestTarget; table: SyncTable }[] = [
      ...[...this.registry.pushed, ...PUSHED_FACTS].map((table) => ({ target: { key: table.key, attachments: false }, table })),
      ...this.registry.pushed.map((resource) => ({ target: { key: resource.key, attachments: true }, table: attachmentTarget(resource) })),
    ]
    try {
      for (const { target, table } of compared) {
        const { differences, repush } = await this.compare(target, table, limit)
        result[target.attachments ? 'attachments' : 'resources'].push(differences)
        result.differences += differences.missing + differences.stale + differences.parkOnly
        result.repushed += await this.sync.repush(table, repush)
      }
    } catch (error) {
      result.error = (error as Error).message
    }
    if (result.repushed > 0) this.wake()
    await this.pool.query(`INSERT INTO app_setting (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [
      SETTING,
      JSON.stringify(result),
    ])
    return result
  }

  /** The last result kept, or null before the first run. */
  async last(): Promise<ReconcileResult | null> {
    const { rows } = await this.pool.query(`SELECT value FROM app_setting WHERE key = $1`, [SETTING])
    // A result kept before attachments were reconciled has none.
    return rows.length > 0 ? { attachments: [], ...JSON.parse(rows[0].value) } : null
  }

  /** Compares what the park holds of `target` with the enterprise's `table`. */
  private async compare(
    target: DigestTarget,
    table: SyncTable,
    limit: number,
  ): Promise<{ differences: ResourceDifferences; repush: string[] }> {
    const differences: ResourceDifferences = {
      resource: target.key,
      enterprise: 0,
      park: 0,
      missing: 0,
      stale: 0,
      parkOnly: 0,
      ids: [],
    }
    const repush: string[] = []
    let frontier = ['']
    let first = true
    while (frontier.length > 0) {
      const [local, remote] = await Promise.all([
        this.digests.digests(table, this.companyCode, frontier),
        this.remoteDigests(target, frontier),
      ])
      if (first) {
        differences.enterprise = local[0].count
        differences.park = remote[0].count
        first = false
      }
      const leaves: Bucket[] = []
      const split: string[] = []
      for (const [i, bucket] of local.entries()) {
        const other = remote[i]
        if (bucket.count === other.count && bucket.digest === other.digest) continue
        const size = Math.max(bucket.count, other.count)
        if (size <= LEAF_RECORDS || bucket.prefix.length >= 8) leaves.push({ ...bucket, count: size })
        else split.push(bucket.prefix)
      }
      for (const group of groupsOf(leaves)) await this.compareRecords(target, table, group, differences, repush, limit)
      frontier = split.flatMap((prefix) => [...HEX].map((digit) => prefix + digit))
    }
    return { differences, repush }
  }

  /** Lists both sides' (id, version, deleted) in these buckets and notes every difference. */
  private async compareRecords(
    target: DigestTarget,
    table: SyncTable,
    prefixes: string[],
    differences: ResourceDifferences,
    repush: string[],
    limit: number,
  ): Promise<void> {
    const [local, remote] = await Promise.all([this.localHeld(table, prefixes), this.client.held(target, this.companyCode, prefixes)])
    const onPark = new Map(remote.map((record) => [record.id, record]))
    const note = (id: string) => {
      if (differences.ids.length < limit) differences.ids.push(id)
    }
    for (const record of local) {
      const held = onPark.get(record.id)
      onPark.delete(record.id)
      // A pending record is on its way: not a difference (yet).
      if (record.pending) continue
      if (held && held.version === record.version && held.deleted === record.deleted) continue
      if (held) differences.stale++
      else differences.missing++
      note(record.id)
      repush.push(record.id)
    }
    for (const id of onPark.keys()) {
      differences.parkOnly++
      note(id)
    }
  }

  private async localHeld(resource: SyncTable, prefixes: string[]): Promise<(HeldVersion & { pending: boolean })[]> {
    const { rows } = await this.pool.query(
      `SELECT id, version, live IS NULL AS deleted, sync_status = 'pending' AS pending FROM "${resource.table}" ` +
        `WHERE "companyCode" = $1 AND left(md5(id), $3) = ANY($2::text[])`,
      [this.companyCode, prefixes, prefixes[0].length],
    )
    return rows
  }

  private async remoteDigests(target: DigestTarget, prefixes: string[]): Promise<Bucket[]> {
    const buckets: Bucket[] = []
    for (let i = 0; i < prefixes.length; i += PREFIXES_PER_CALL) {
      buckets.push(...(await this.client.digests(target, this.companyCode, prefixes.slice(i, i + PREFIXES_PER_CALL))))
    }
    return buckets
  }
}

/** Leaf buckets grouped by prefix length, each group listing at most LIST_RECORDS records. */
function groupsOf(leaves: Bucket[]): string[][] {
  const groups: string[][] = []
  const byLength = new Map<number, Bucket[]>()
  for (const leaf of leaves) byLength.set(leaf.prefix.length, [...(byLength.get(leaf.prefix.length) ?? []), leaf])
  for (const sameLength of byLength.values()) {
    let group: string[] = []
    let size = 0
    for (const leaf of sameLength) {
      if (group.length > 0 && (size + leaf.count > LIST_RECORDS || group.length >= PREFIXES_PER_CALL)) {
        groups.push(group)
        group = []
        size = 0
      }
      group.push(leaf.prefix)
      size += leaf.count
    }
    if (group.length > 0) groups.push(group)
  }
  return groups
}
