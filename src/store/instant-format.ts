// Instants are written back in the configured zone, in the document's wire form
// `2026-11-21T13:02:35+08:00`: to the second.

export type InstantFormatter = (instant: Date) => string

export function instantFormatter(zone: string): InstantFormatter {
  const fixed = fixedOffsetMinutes(zone)
  if (fixed !== undefined) {
    const suffix = offsetText(fixed)
    return (instant) => render(instant, fixed, suffix)
  }
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
  return (instant) => {
    const name = parts.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT'
    const minutes = fixedOffsetMinutes(name.replace('GMT', '') || 'Z') ?? 0
    return render(instant, minutes, offsetText(minutes))
  }
}

function render(instant: Date, offsetMinutes: number, suffix: string): string {
  return new Date(instant.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19) + suffix
}

function fixedOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'UTC') return 0
  const match = /^([+-])(\d{2}):(\d{2})$/.exec(zone)
  if (!match) return undefined
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+'
  const absolute = Math.abs(minutes)
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`
}

/** Instants sent by callers are kept to the second, as they are written back: a fraction is dropped. */
export function toSecond(instant: string): string {
  return instant.replace(/(T\d{2}:\d{2}:\d{2})\.\d+/i, '$1')
}
