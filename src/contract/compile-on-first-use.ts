// Request validators (Ajv) and response serializers (fast-json-stringify) compiled on their first
// call instead of at start. Compiling those of every operation (some 120 routes, each with its
// request body, its headers and its responses, and the batch items of the nine resources) was half
// of a start, and a process calls few of them: a park edition serves pushes, an enterprise's
// integrators a handful of operations. Each compiles once, on the request that first needs it.
// `compileAll` compiles those not called yet, so a test proves that every schema compiles.
import type { SchemaObject } from 'ajv/dist/2020.js'
import type { createAjv, Validator } from './validation.ts'

export class CompileOnFirstUse {
  /** The compiles not run yet; each leaves once it has compiled. */
  readonly #pending = new Set<() => unknown>()
  readonly #ajv: ReturnType<typeof createAjv>

  /** `ajv`: the one Ajv that compiles every validator (validation.ts). */
  constructor(ajv: ReturnType<typeof createAjv>) {
    this.#ajv = ajv
  }

  /** The validator of `schema`, compiled on its first call; like Ajv's, it holds the errors of its last call. */
  validator(schema: SchemaObject): Validator {
    const compiled = this.#onFirstUse(() => this.#ajv.compile(schema))
    const validate: Validator = (data) => {
      const target = compiled()
      const valid = target(data)
      // Fastify and the batches read the errors of a failed call from the validator they called.
      validate.errors = target.errors
      return valid
    }
    return validate
  }

  /** A serializer that compiles on its first call. */
  serializer<T>(compile: () => (data: T) => string): (data: T) => string {
    const compiled = this.#onFirstUse(compile)
    return (data) => compiled()(data)
  }

  /** Compiles every validator and serializer not called yet (a schema that cannot compile throws here); how many it compiled. */
  compileAll(): number {
    const pending = [...this.#pending]
    for (const compiled of pending) compiled()
    return pending.length
  }

  #onFirstUse<F>(compile: () => F): () => F {
    let compiled: F | undefined
    const get = (): F => {
      if (compiled === undefined) {
        compiled = compile()
        this.#pending.delete(get)
      }
      return compiled
    }
    this.#pending.add(get)
    return get
  }
}
