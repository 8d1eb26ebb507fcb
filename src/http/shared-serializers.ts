// Response serializers (fast-json-stringify, through Fastify's own compiler factory), compiled once
// per distinct schema instead of once per route and status: the error answers of every operation
// share one envelope, and the nine resources' writes share theirs. With 120 operations this cut the
// serializers compiled at start from some thousand to a few dozen, and the memory start left the
// process holding by tens of megabytes. Each is compiled on the first answer that needs it
// (contract/compile-on-first-use.ts).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'

type Factory = ReturnType<typeof SerializerSelector>
type Compile = ReturnType<Factory>

export function sharedSerializers(compiles: CompileOnFirstUse): Factory {
  return (externalSchemas, options) => {
    const compile: Compile = SerializerSelector()(externalSchemas, options)
    const compiled = new Map<string, ReturnType<Compile>>()
    const shared = (route: Parameters<Compile>[0]) => {
      const key = JSON.stringify(route.schema)
      let serializer = compiled.get(key)
      if (!serializer) {
        serializer = compile(route)
        compiled.set(key, serializer)
      }
      return serializer
    }
    return (route) =>
      compiles.serializer(() => {
        const split = splitNullableData(route.schema)
        if (!split) return shared(route)
        // Each shape its own serializer, chosen by the answer itself.
        const withData = shared({ ...route, schema: split.withData })
        const withoutData = shared({ ...route, schema: split.withoutData })
        return (payload: unknown) =>
          (typeof payload === 'object' && payload !== null && (payload as { data?: unknown }).data === null ? withoutData : withData)(
            payload,
          )
      })
  }
}

/**
 * An envelope whose `data` is `oneOf` (or `anyOf`) its payload or null, as two schemas: one with the
 * payload, one with null. fast-json-stringify serializes a `oneOf` by validating the value against
 * each option in turn (with Ajv, formats included): every page of records was validated field by
 * field before it was written out, a tenth of a read's CPU. The answer itself says which shape it
 * has (`data` null or not), so each shape is serialized by its own serializer, with no validation.
 */
export function splitNullableData(schema: unknown): { withData: object; withoutData: object } | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  const properties = (schema as { properties?: Record<string, unknown> }).properties
  const data = properties?.data as { oneOf?: unknown[]; anyOf?: unknown[] } | undefined
  const options = data?.oneOf ?? data?.anyOf
  const annotations = new Set(['oneOf', 'anyOf', 'description', 'title'])
  if (!Array.isArray(options) || options.length !== 2 || !Object.keys(data!).every((key) => annotations.has(key))) return undefined
  const isNull = (option: unknown) => typeof option === 'object' && option !== null && (option as { type?: unknown }).type === 'null'
  const nulls = options.filter(isNull)
  if (nulls.length !== 1) return undefined
  const payload = options.find((option) => !isNull(option))!
  return {
    withData: { ...schema, properties: { ...properties, data: payload } },
    withoutData: { ...schema, properties: { ...properties, data: { type: 'null' } } },
  }
}
