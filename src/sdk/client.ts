// The integrators' SDK (`import { createSafetyClient } from 'safety-platform/sdk'`): the typed client
// generated from the document (openapi-fetch over generated/openapi.ts), plus the session: `login`
// keeps the token pair, a middleware sends `Authorization: Bearer <token>` on every call, and a call
// answered 401 with code 2002 (token expired or revoked) is retried once after `/system/refresh`.
//
// Every call answers openapi-fetch's `{ data, error, response }` untouched: business failures are
// HTTP 200 with `success: false` (in `data`; decide by `code`), transport failures (400, 401, 403,
// 413, 429, 500, 503) are in `error`. Nothing here throws on either; only a network failure throws,
// as with fetch itself.
import createClient, { type Middleware } from 'openapi-fetch'
import type { paths } from '../../generated/openapi.ts'

export type { components, operations, paths } from '../../generated/openapi.ts'

/** Code of a token that expired, was revoked or is of the wrong kind (HTTP 401). */
const BAD_TOKEN = 2002

export interface SafetyClientOptions {
  /** Where the service answers, e.g. `http://localhost:3000` (a trailing slash is ignored). */
  baseUrl: string
  /** A fetch of your own (proxy, timeouts, tests); the global fetch by default. */
  fetch?: (request: Request) => Promise<Response>
  /** A session kept from `getTokens()` of an earlier client: calls go with it at once, no login needed. */
  tokens?: SafetyTokens
  /** `Accept-Language` of every call that sets none of its own, e.g. `zh-CN` for messages in Chinese. */
  language?: string
}

export interface SafetyTokens {
  /** The bearer token sent on every call: `token` of login, then `access_token` of each refresh. */
  accessToken: string
  /** Accepted only by `/system/refresh`. */
  refreshToken: string
  /** When the access token expires, by this machine's clock (from `expires_in`). */
  expiresAt: Date
}

/** Paths the session middleware leaves alone: login needs no token, refresh carries the refresh token. */
const UNAUTHENTICATED = new Set(['/system/login', '/system/refresh'])

/** What the session middleware needs of the client's session. */
interface Session {
  tokens(): SafetyTokens | undefined
  /** Refreshes the access token, one refresh for all the calls that ask at once; true when it worked. */
  refreshOnce(): Promise<boolean>
}

/** Sends the access token with every call; on a 401/2002 refreshes once and sends the call again. */
function sessionMiddleware(session: Session): Middleware {
  // The request as it was before fetch consumed its body, with the token it carried: what a retry
  // sends again. Keyed by the Request object itself, so nothing outlives the call.
  const sent = new WeakMap<Request, { copy: Request; accessToken: string }>()
  return {
    onRequest({ request, schemaPath }) {
      const tokens = session.tokens()
      if (UNAUTHENTICATED.has(schemaPath) || !tokens || request.headers.has('authorization')) return undefined
      request.headers.set('authorization', `Bearer ${tokens.accessToken}`)
      sent.set(request, { copy: request.clone(), accessToken: tokens.accessToken })
      return request
    },
    async onResponse({ request, response, options: { fetch } }) {
      const original = sent.get(request)
      if (!original) return undefined
      sent.delete(request)
      if (response.status !== 401 || (await answerCode(response)) !== BAD_TOKEN) return undefined
      // Another call may have refreshed meanwhile; otherwise refresh now (one refresh for all).
      if (session.tokens()?.accessToken === original.accessToken && !(await session.refreshOnce())) return undefined
      const tokens = session.tokens()
      if (!tokens || tokens.accessToken === original.accessToken) return undefined
      const headers = new Headers(original.copy.headers)
      headers.set('authorization', `Bearer ${tokens.accessToken}`)
      const retry = new Request(original.copy, { headers })
      await response.body?.cancel()
      return fetch(retry)
    },
  }
}

/** Asks for the messages in `language` unless the call asks for its own. */
function languageMiddleware(language: string): Middleware {
  return {
    onRequest({ request }) {
      if (request.headers.has('accept-language')) return undefined
      request.headers.set('accept-language', language)
      return request
    },
  }
}

export function createSafetyClient(options: SafetyClientOptions) {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch })
  let tokens: SafetyTokens | undefined = options.tokens && { ...options.tokens }
  let refreshing: Promise<boolean> | undefined
  if (options.language) client.use(languageMiddleware(options.language))
  client.use(sessionMiddleware({ tokens: () => tokens, refreshOnce }))

  function keep(accessToken: string, refreshToken: string, expiresIn: number): void {
    tokens = { accessToken, refreshToken, expiresAt: new Date(Date.now() + expiresIn * 1000) }
  }

  /** Logs in and keeps the token pair for every later call. Answers the login call as it came. */
  async function login(userName: string, password: string) {
    const answer = await client.POST('/system/login', { body: { userName, password } })
    const granted = answer.data?.data
    if (answer.data?.code === 0 && granted) keep(granted.token, granted.refresh_token, granted.expires_in)
    return answer
  }

  /**
   * Exchanges the refresh token for a new access token (done by itself on a 401/2002; call it to
   * refresh ahead of time). Answers the refresh call as it came; `undefined` when not logged in.
   */
  async function refresh() {
    const current = tokens
    if (!current) return undefined
    const answer = await client.POST('/system/refresh', { headers: { authorization: `Bearer ${current.refreshToken}` } })
    const granted = answer.data?.data
    // A login while the refresh was under way wins over the refresh's answer.
    if (answer.data?.code === 0 && granted && tokens?.refreshToken === current.refreshToken)
      keep(granted.access_token, granted.refresh_token, granted.expires_in)
    return answer
  }

  function refreshOnce(): Promise<boolean> {
    refreshing ??= refresh()
      .then(
        (answer) => answer?.data?.code === 0,
        () => false,
      )
      .finally(() => {
        refreshing = undefined
      })
    return refreshing
  }

  /** Revokes the session on the server; the tokens are forgotten once it did. Answers the logout call as it came. */
  async function logout() {
    const current = tokens
    const answer = await client.POST('/system/logout', { body: {} })
    if (answer.data?.code === 0 && tokens?.refreshToken === current?.refreshToken) tokens = undefined
    return answer
  }

  return Object.assign(client, {
    login,
    refresh,
    logout,
    /** A copy of the tokens held now (to persist a session: `tokens` of a later client); `undefined` before login and after logout. */
    getTokens: (): SafetyTokens | undefined => tokens && { ...tokens },
  })
}

export type SafetyClient = ReturnType<typeof createSafetyClient>

async function answerCode(response: Response): Promise<unknown> {
  try {
    const answer: unknown = await response.clone().json()
    return typeof answer === 'object' && answer !== null && 'code' in answer ? answer.code : undefined
  } catch {
    return undefined
  }
}
