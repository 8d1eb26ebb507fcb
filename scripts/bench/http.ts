// Single calls to a server (set-up, checks and the timed reads): JSON in, the envelope out.
export interface Reply {
  status: number
  body: any
}

export async function call(url: string, method: 'GET' | 'POST', body?: unknown, token?: string): Promise<Reply> {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token) headers.authorization = `Bearer ${token}`
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  })
  const text = await response.text()
  try {
    return { status: response.status, body: JSON.parse(text) }
  } catch {
    return { status: response.status, body: text }
  }
}

/** A POST answered 200 with business code 0: its `data`; anything else throws, naming `what`. */
export async function ok(url: string, body: unknown, token: string | undefined, what: string): Promise<any> {
  const reply = await call(url, 'POST', body, token)
  if (reply.status !== 200 || reply.body?.code !== 0) {
    throw new Error(`${what} failed: HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`)
  }
  return reply.body.data
}

export async function login(baseUrl: string, userName: string, password: string): Promise<string> {
  const data = await ok(`${baseUrl}/system/login`, { userName, password }, undefined, `login as ${userName} at ${baseUrl}`)
  if (typeof data?.token !== 'string') throw new Error(`login at ${baseUrl} answered no token`)
  return data.token
}
