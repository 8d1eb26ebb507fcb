// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: throws on
// any line a Prometheus server would refuse, and on samples of a family no `# TYPE` line declared.
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  types: Map<string, string>
  samples: Sample[]
  /** The value of the one sample with this name and (at least) these labels; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*'
const VALUE = '(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]?Inf|NaN)'
const sampleLine = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (${VALUE})(?: (-?\\d+))?$`)
const labelPair = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"(,|$)`)
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count'] }

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  const lines = text.split('\n')
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a line feed')
  lines.pop()
  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${JSON.stringify(line)})`
    if (line.trim() === '') return // empty lines are allowed
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line)
      if (!meta) return // a plain comment
      const [, kind, name, rest = ''] = meta
      if (!new RegExp(`^${NAME}$`).test(name!)) throw new Error(`${where}: bad metric name`)
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`${where}: bad type`)
        if (types.has(name!)) throw new Error(`${where}: second TYPE for ${name}`)
        types.set(name!, rest)
      }
      return
    }
    const match = sampleLine.exec(line)
    if (!match) throw new Error(`${where}: not a sample`)
    const [, name, labelText = '', valueText] = match
    const labels: Record<string, string> = {}
    let remaining = labelText
    while (remaining !== '') {
      const pair = labelPair.exec(remaining)
      if (!pair) throw new Error(`${where}: bad labels`)
      if (pair[1]! in labels) throw new Error(`${where}: label ${pair[1]} twice`)
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
      remaining = remaining.slice(pair[0].length)
    }
    const family = [...types.keys()].find(
      (family) => family === name || (SUFFIXES[types.get(family)!] ?? []).some((suffix) => family + suffix === name),
    )
    if (!family) throw new Error(`${where}: sample of a family without TYPE`)
    const value = valueText!.endsWith('Inf') ? (valueText!.startsWith('-') ? -Infinity : Infinity) : Number(valueText)
    samples.push({ name: name!, labels, value })
  })
  return {
    types,
    samples,
    value(name, wanted = {}) {
      const found = samples.filter(
        (sample) => sample.name === name && Object.entries(wanted).every(([key, value]) => sample.labels[key] === value),
      )
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(wanted)}`)
      return found[0]?.value
    },
  }
}
