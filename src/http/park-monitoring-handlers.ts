// The handlers of live monitoring on the park edition: the push of one-minute aggregates, the reads
// of the pushed alarms (hazard/monitorAlarm) with their attachments, and of the pushed minutes
// (hazard/monitorData/aggregate and latest), across the enterprises (an `enterprise` account reads
// its own).
import type { components } from '../../generated/openapi.ts'
import { success } from '../errors.ts'
import type { AlarmOperations } from '../operations/alarm-operations.ts'
import type { AttachmentOperations } from '../operations/attachment-operations.ts'
import type { ParkMonitoring } from '../operations/park-monitoring.ts'
import { bodyOf, type Handler, ownCompany, pageQuery, readCompany } from './handlers.ts'
import { alarmAttachmentReads } from './monitoring-handlers.ts'

type Schemas = components['schemas']

export function parkMonitoringHandlers(options: {
  alarms: AlarmOperations
  attachments: AttachmentOperations
  monitoring: ParkMonitoring
}): [string, Handler][] {
  const { alarms, attachments, monitoring } = options
  return [
    [
      'systemPushReadings',
      async (request) => success(await monitoring.pushReadings(bodyOf<{ list: unknown[] }>(request).list, ownCompany(request))),
    ],
    ['hazardMonitorAlarmList', async (request) => success(await alarms.page(pageQuery(request)))],
    ['hazardMonitorAlarmSearch', async (request) => success(await alarms.page(pageQuery(request)))],
    [
      'hazardMonitorAlarmGetById',
      async (request) => {
        const { id, companyCode } = bodyOf<Schemas['GetByIdRequest']>(request)
        return success(await alarms.getById(id, readCompany(request, companyCode)))
      },
    ],
    [
      'hazardMonitorAlarmHistory',
      async (request) => {
        const body = bodyOf<Schemas['HistoryRequest']>(request)
        return success(await alarms.historyOf({ ...body, companyCode: readCompany(request, body.companyCode) }))
      },
    ],
    ...alarmAttachmentReads(alarms.resource, attachments),
    [
      'hazardMonitorDataAggregate',
      async (request) => success(await monitoring.aggregate(bodyOf<Schemas['MonitorDataAggregateRequest']>(request), ownCompany(request))),
    ],
    [
      'hazardMonitorDataLatest',
      async (request) => success(await monitoring.latest(bodyOf<Schemas['MonitorDataLatestRequest']>(request), ownCompany(request))),
    ],
  ]
}
