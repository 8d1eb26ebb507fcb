// The enterprise's time zone as inspection periods need it: wall-clock readings ("local" time,
// milliseconds counted as if the wall clock were UTC) to instants and back. Days, working days and
// daily windows are read on that wall clock; periods are stored as instants.
import { utcMilliseconds } from '../../contract/storable.ts'

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

export interface Zone {
  /** The wall-clock reading at an instant. */
  toLocal(instant: number): number
  /** The instant the wall clock reads `local` (a reading a clock change skipped or repeated: its first instant). */
  toInstant(local: number): number
}

/** A zone by its configured name: an offset (`+08:00`, `Z`, `UTC`) or an IANA name (`Asia/Shanghai`). */
export function zoneNamed(name: string): Zone {
  const fixed = fixedOffsetMinutes(name)
  if (fixed !== undefined) {
    const offset = fixed * MINUTE
    return { toLocal: (instant) => instant + offset, toInstant: (local) => local - offset }
  }
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  })
  const offsetAt = (instant: number): number => {
    const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((part) => [part.type, Number(part.value)]))
    const wall = utcMilliseconds(parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    return wall - (instant - (((instant % 1000) + 1000) % 1000))
  }
  return {
    toLocal: (instant) => instant + offsetAt(instant),
    toInstant: (local) => {
      // The offsets in force half a day either side bound every candidate (zones change theirs at most once a day).
      const earlier = local - offsetAt(local - 12 * HOUR)
      const later = local - offsetAt(local + 12 * HOUR)
      const valid = [earlier, later].filter((instant) => instant + offsetAt(instant) === local)
      // Repeated (clock set back): the first; skipped (clock set forward): read with the offset before the change.
      return valid.length > 0 ? Math.min(...valid) : earlier
    },
  }
}

function fixedOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'UTC') return 0
  const match = /^([+-])(\d{2}):(\d{2})$/.exec(zone)
  if (!match) return undefined
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
}

/** `YYYY-MM-DD` of a wall-clock reading. */
export function dateOfLocal(local: number): string {
  return new Date(local).toISOString().slice(0, 10)
}

/** The wall-clock reading at midnight starting a `YYYY-MM-DD` day. */
export function localMidnight(date: string): number {
  return utcMilliseconds(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)), 0, 0, 0)
}

/** The zone's current date at an instant. */
export function dateAt(zone: Zone, instant: number): string {
  return dateOfLocal(zone.toLocal(instant))
}

/** Milliseconds after midnight of a `HH:mm:ss` reading. */
export function timeOfDay(text: string): number {
  const [hours, minutes, seconds] = text.split(':').map(Number)
  return hours * HOUR + minutes * MINUTE + (seconds ?? 0) * 1000
}

/** The wall-clock reading `months` calendar months after `local`, the day cut to the month's last (31 January + 1 month = 28 or 29 February). */
export function addMonths(local: number, months: number): number {
  const date = new Date(local)
  const year = date.getUTCFullYear()
  const month = date.getUTCMonth() + months
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return Date.UTC(
    year,
    month,
    Math.min(date.getUTCDate(), lastDay),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    date.getUTCMilliseconds(),
  )
}
