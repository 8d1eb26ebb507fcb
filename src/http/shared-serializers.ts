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
    return (route) =>
      compiles.serializer(() => {
        const key = JSON.stringify(route.schema)
        let serializer = compiled.get(key)
        if (!serializer) {
          serializer = compile(route)
          compiled.set(key, serializer)
        }
        return serializer
      })
  }
}
