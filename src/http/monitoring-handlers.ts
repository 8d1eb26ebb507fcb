// The handlers of live monitoring's operations (hazard/monitorData, hazard/monitorAlarm,
// hazard/monitorEquip/shelve and unshelve), over operations/monitoring-parts.ts. Writes go through
// the Idempotency-Key handling of the other writes (`write`, given by handlers.ts).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { components } from '../../generated/openapi.ts'
import type { SearchRequest } from '../domain/search.ts'
import { type Envelope, success } from '../errors.ts'
import type { MonitoringParts } from '../operations/monitoring-parts.ts'
import type { AttachmentOperations } from '../operations/attachment-operations.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { WriteContext } from '../store/resource-store.ts'
import { readCompany } from './handlers.ts'

type Schemas = components['schemas']
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope
type Write = (request: FastifyRequest, context: WriteContext) => Promise<Envelope>

/** A request's body, validated by its route against the schema named. */
function bodyOf<Body>(request: FastifyRequest): Body {
  return request.body as Body
}

export function monitoringHandlers(parts: MonitoringParts, write: (operationId: string, run: Write) => Handler): [string, Handler][] {
  return [
    ...writeHandlers(parts).map(([operationId, run]): [string, Handler] => [operationId, write(operationId, run)]),
    ...readHandlers(parts),
  ]
}

/** The writes, each run through `write` (Idempotency-Key). */
function writeHandlers(parts: MonitoringParts): [string, Write][] {
  const { ingest, alarms, attachments } = parts
  const alarm = alarms.resource
  return [
    [
      'hazardMonitorDataAddBatch',
      async (request, context) => success(await ingest.addBatch(bodyOf<{ list: unknown[] }>(request).list, context)),
    ],
    [
      'hazardMonitorAlarmAcknowledge',
      async (request, context) => {
        await alarms.acknowledge(bodyOf<Schemas['IdRequest']>(request).id, context)
        return success()
      },
    ],
    [
      'hazardMonitorAlarmDispose',
      async (request, context) => {
        await alarms.dispose(bodyOf<Schemas['MonitorAlarmDisposeRequest']>(request), context)
        return success()
      },
    ],
    [
      'hazardMonitorEquipShelve',
      async (request, context) => {
        await alarms.shelve(bodyOf<Schemas['MonitorEquipShelveRequest']>(request), context)
        return success()
      },
    ],
    [
      'hazardMonitorAlarmAttachmentAdd',
      async (request, context) => {
        await attachments.add(alarm, bodyOf<Schemas['AttachmentAddRequest']>(request), context)
        return success()
      },
    ],
    [
      'hazardMonitorAlarmAttachmentDelete',
      async (request, context) => {
        await attachments.delete(alarm, bodyOf<Schemas['IdRequest']>(request).id, context)
        return success()
      },
    ],
    [
      'hazardMonitorEquipUnshelve',
      async (request, context) => {
        await alarms.unshelve(bodyOf<Schemas['IdRequest']>(request).id, context)
        return success()
      },
    ],
  ]
}

function readHandlers(parts: MonitoringParts): [string, Handler][] {
  const { reads, alarms, attachments } = parts
  const alarm = alarms.resource
  return [
    ['hazardMonitorDataList', async (request) => success(await reads.list(bodyOf<Schemas['MonitorDataListRequest']>(request)))],
    [
      'hazardMonitorDataAggregate',
      async (request) => success(await reads.aggregate(bodyOf<Schemas['MonitorDataAggregateRequest']>(request))),
    ],
    ['hazardMonitorDataLatest', async (request) => success(await reads.latest(bodyOf<Schemas['MonitorDataLatestRequest']>(request)))],
    ['hazardMonitorAlarmList', async (request) => success(await alarms.page(bodyOf<SearchRequest>(request) ?? {}))],
    ['hazardMonitorAlarmSearch', async (request) => success(await alarms.page(bodyOf<SearchRequest>(request) ?? {}))],
    [
      'hazardMonitorAlarmGetById',
      async (request) => {
        const { id, companyCode } = bodyOf<Schemas['GetByIdRequest']>(request)
        return success(await alarms.getById(id, companyCode))
      },
    ],
    ...alarmAttachmentReads(alarm, attachments),
    ['hazardMonitorAlarmHistory', async (request) => success(await alarms.historyOf(bodyOf<Schemas['HistoryRequest']>(request)))],
  ]
}

/** The reads of the alarms' attachments, on both editions: on the park, of every enterprise (an `enterprise` account its own). */
export function alarmAttachmentReads(alarm: ResourceDef, attachments: AttachmentOperations): [string, Handler][] {
  return [
    [
      'hazardMonitorAlarmAttachmentList',
      async (request) => {
        const { recordId, companyCode } = bodyOf<Schemas['AttachmentListRequest']>(request)
        return success(await attachments.list(alarm, recordId, readCompany(request, companyCode)))
      },
    ],
    [
      'hazardMonitorAlarmAttachmentGet',
      async (request) => {
        const { id, companyCode } = bodyOf<Schemas['AttachmentGetRequest']>(request)
        return success(await attachments.get(alarm, id, readCompany(request, companyCode)))
      },
    ],
  ]
}
