// Hidden dangers and work tickets as the supervision tests write them: dates known in advance
// (January 2026, zone +08:00), and today's date for what falls due today.
import { dateAt, zoneNamed } from '../../src/domain/supervision/zone.ts'

/** Today's date (YYYY-MM-DD) in the fixtures' zone, `+08:00`. */
export function todayInFixtureZone(): string {
  return dateAt(zoneNamed('+08:00'), Date.now())
}

/** A hidden danger found outside any inspection, open (level 0, not accepted): the test adds its dates. */
export const OPEN_DANGER = {
  riskMeasureId: null,
  checkRecordId: null,
  dangerLevel: '0',
  dangerState: '0',
  checkAcceptPerson: null,
  checkAcceptTime: null,
}

/** A work ticket of the enterprise's own staff (no contractor), of no level: the test adds its type, state and plan. */
export const OWN_TICKET = { workLevel: null, isContractorWork: '0', contractorOrg: null }
