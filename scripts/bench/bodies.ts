// Request bodies of `monitorEquip/add`: all 23 fields, valid (the document's example of MonitorEquip,
// which meets the cross-field rules), with a unique id, monitorCode and monitorName per body. Built
// from a template split at those values, so the load generator spends little per request.
import { loadOpenApi, type OpenApiDocument } from '../../src/contract/openapi-document.ts'

export const document: OpenApiDocument = loadOpenApi().document

/** The example record of MonitorEquip in the document (a fresh copy). */
export function monitorEquipExample(): Record<string, unknown> {
  const examples = document.components?.schemas?.MonitorEquip?.examples
  if (!examples?.length) throw new Error('openapi.yaml has no example of MonitorEquip')
  return structuredClone(examples[0] as Record<string, unknown>)
}

export class Bodies {
  /** Bodies handed out so far. */
  issued = 0
  /** The template: text, then which value (1 id, 2 monitorCode, 3 monitorName), text, ... */
  private readonly parts: string[]
  readonly prefix: string

  /** `prefix`: the ids (`<prefix><n>`), monitorCodes (`MC-<prefix><n>`) of this series. */
  constructor(prefix: string) {
    this.prefix = prefix
    const marked = JSON.stringify({ ...monitorEquipExample(), id: '\u0001', monitorCode: '\u0002', monitorName: '\u0003' })
    this.parts = marked.split(/\\u000([123])/)
    if (this.parts.length !== 7) throw new Error('cannot build the monitorEquip body template')
  }

  next(): string {
    const n = `${this.prefix}${++this.issued}`
    const values: Record<string, string> = { 1: n, 2: `MC-${n}`, 3: `bench monitor ${n}` }
    let body = this.parts[0]
    for (let i = 1; i < this.parts.length; i += 2) body += values[this.parts[i]] + this.parts[i + 1]
    return body
  }

  /** One more body, as an object (first calls). */
  record(): Record<string, unknown> {
    return JSON.parse(this.next())
  }
}
