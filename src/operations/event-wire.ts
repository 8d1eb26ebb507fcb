// An event in the wire form, as the feed answers it and the webhooks deliver it: a record event's
// changes as its history entry answers them (store/history-store.ts), instants in the configured
// zone. What it needs of the resources is plain data (each one's fields by its path), which the
// delivery thread is given as it starts.
import type { FieldDef, ResourceRegistry } from '../resources/resource-registry.ts'
import type { StoredEvent } from '../store/event-store.ts'
import { changesInWireForm } from '../store/history-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'

/** An event as the feed and the webhooks answer it. */
export interface WireEvent {
  id: string
  type: string
  time: string
  seq: number
  companyCode: string
  data: Record<string, unknown>
}

/** Each resource's fields, by its path (`hazard/monitorEquip`). */
export type WireFields = Record<string, readonly FieldDef[]>

const RECORD_ACTIONS: Record<string, 'add' | 'update' | 'delete'> = {
  'record.added': 'add',
  'record.updated': 'update',
  'record.deleted': 'delete',
}

export function wireFields(registry: Pick<ResourceRegistry, 'all'>): WireFields {
  return Object.fromEntries(registry.all.map((resource) => [resource.path, resource.fields]))
}

/** The wire form of events, for these resources and this zone's instants. */
export function eventWire(fields: WireFields, format: InstantFormatter): (event: StoredEvent) => WireEvent {
  return (event) => {
    const { seq, id, type, companyCode } = event
    let data = event.data
    const action = RECORD_ACTIONS[type]
    const resourceFields = action && typeof data.resource === 'string' ? fields[data.resource] : undefined
    if (action && resourceFields) {
      data = { ...data, changes: changesInWireForm({ fields: resourceFields }, action, data.changes as Record<string, unknown>, format) }
    }
    return { id, type, time: format(event.time), seq, companyCode, data }
  }
}
