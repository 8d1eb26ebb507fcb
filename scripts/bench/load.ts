// The load generator: autocannon in the bench's own process, one request shape per run, a fresh
// body per request (setupRequest), every answer's HTTP status counted; optionally every answer's
// business code checked (warm-ups).
import { createRequire } from 'node:module'
import { fail, onStop } from './common.ts'
import { settings } from './settings.ts'

// ---- autocannon (no type declarations shipped): the part used here ----
interface LoadRequest {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  setupRequest?: (request: LoadRequest, context: object) => LoadRequest
  onResponse?: (status: number, body: string) => void
}
export interface LoadResult {
  requests: { average: number; sent: number }
  latency: { average: number; p50: number; p99: number }
  duration: number
  '2xx': number
  non2xx: number
  errors: number
  timeouts: number
  statusCodeStats: Record<string, { count: number }>
}
type Autocannon = (
  options: { url: string; connections: number; duration: number; pipelining: number; timeout: number; requests: LoadRequest[] },
  done: (error: Error | null, result: LoadResult) => void,
) => { stop(): void }
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

export interface LoadSpec {
  /** How progress lines and failures name it. */
  name: string
  url: string
  path: string
  headers: Record<string, string>
  /** A fresh body per request. */
  body: () => string
  /** Check each answer's envelope (business code 0): warm-ups. */
  checkAnswers?: boolean
}

export interface LoadRun {
  result: LoadResult
  /** When the load ended (performance.now()). */
  endedAt: number
}

/** Answers with business code other than 0 seen by checked runs, per load name. */
export const rejected = new Map<string, { count: number; example: string }>()

export function runLoad(spec: LoadSpec, seconds: number): Promise<LoadRun> {
  const request: LoadRequest = { method: 'POST', path: spec.path, headers: spec.headers }
  request.setupRequest = (built) => ({ ...built, body: spec.body() })
  if (spec.checkAnswers) request.onResponse = (status, body) => checkAnswer(spec.name, status, body)
  return new Promise((resolve, reject) => {
    let unregister = () => {}
    const instance = autocannon(
      { url: spec.url, connections: settings.connections, duration: seconds, pipelining: 1, timeout: 10, requests: [request] },
      (error, result) => {
        const endedAt = performance.now()
        unregister()
        if (error) return reject(error)
        if (result.non2xx || result.errors || result.timeouts) {
          const codes = Object.entries(result.statusCodeStats)
            .filter(([status]) => !status.startsWith('2'))
            .map(([status, { count }]) => `${count} × HTTP ${status}`)
          fail(
            `${spec.name}: ${result.non2xx} non-2xx (${codes.join(', ') || 'none'}), ${result.errors} errors, ${result.timeouts} timeouts`,
          )
        }
        resolve({ result, endedAt })
      },
    )
    unregister = onStop(() => instance.stop())
  })
}

function checkAnswer(name: string, status: number, body: string): void {
  let code: unknown
  try {
    code = JSON.parse(body).code
  } catch {
    code = undefined
  }
  if (status === 200 && code === 0) return
  const seen = rejected.get(name) ?? { count: 0, example: `HTTP ${status} ${body.slice(0, 200)}` }
  seen.count++
  rejected.set(name, seen)
}
