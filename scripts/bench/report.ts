// The figures: one row each, printed as one table on stdout and written as JSON (BENCH_JSON).
// A row's target is either relative (a ratio to the baseline of the same run: its `ratio` is that
// ratio) or absolute (a limit: its `ratio` is the figure over the limit); `met` judges it.
import { writeFileSync } from 'node:fs'
import { GROUPS, type Group } from './settings.ts'

export interface Target {
  op: '>=' | '<='
  limit: number
  /** relative: `limit` is a ratio to the baseline's figure; absolute: a value in the row's unit. */
  relative: boolean
  /** What a relative target is a ratio to (default: the baseline). */
  of?: string
}

export interface Row {
  group: Group
  what: string
  /** The figure (undefined: not measured). */
  value: number | undefined
  unit: string
  target?: Target
  ratio?: number
  met?: boolean
  /** Other figures of the row (p50, the rounds, the source of the figure). */
  detail?: string
}

export const rows: Row[] = []

/** Adds a row, judging it: an absolute target by the figure, a relative one by the given ratio. */
export function addRow(row: Omit<Row, 'met'> & { met?: boolean }): Row {
  const { target, value } = row
  if (target && value !== undefined && Number.isFinite(value)) {
    if (!target.relative) row.ratio = value / target.limit
    if (row.ratio !== undefined && Number.isFinite(row.ratio)) {
      row.met = target.op === '>=' ? row.ratio >= (target.relative ? target.limit : 1) : row.ratio <= (target.relative ? target.limit : 1)
    }
  }
  rows.push(row as Row)
  return row as Row
}

const number = (value: number) => {
  if (!Number.isFinite(value)) return String(value)
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

function cells(row: Row): string[] {
  const target = row.target
    ? `${row.target.op === '>=' ? '≥' : '≤'} ${row.target.relative ? `${row.target.limit} × ${row.target.of ?? 'baseline'}` : `${number(row.target.limit)} ${row.unit}`}`
    : 'info'
  return [
    row.group,
    row.what,
    row.value === undefined ? '-' : `${number(row.value)} ${row.unit}`,
    target,
    row.ratio === undefined ? '' : `${row.ratio.toFixed(2)} ×`,
    row.met === undefined ? '' : row.met ? 'met' : 'NOT met',
    row.detail ?? '',
  ]
}

/** Display width: CJK characters take two columns. */
const width = (text: string) => [...text].reduce((n, ch) => n + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 2 : 1), 0)
const pad = (text: string, size: number, right = false) =>
  right ? ' '.repeat(size - width(text)) + text : text + ' '.repeat(size - width(text))

export function table(heading: string): string {
  const header = ['group', 'what', 'figure', 'target', 'ratio', 'met', 'detail']
  const ordered = [...rows].sort((a, b) => GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group))
  const body = ordered.map(cells)
  const sizes = header.map((_, i) => Math.max(width(header[i]), ...body.map((line) => width(line[i]))))
  const line = (values: string[]) =>
    values
      .map((value, i) => pad(value, sizes[i], i === 2 || i === 4))
      .join('  ')
      .trimEnd()
  return [heading, line(header), sizes.map((size) => '-'.repeat(size)).join('  '), ...body.map(line)].join('\n') + '\n'
}

export function writeJson(file: string, meta: Record<string, unknown>, failures: string[]): void {
  writeFileSync(file, JSON.stringify({ ...meta, rows, failures }, null, 2) + '\n')
}
