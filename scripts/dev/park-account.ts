// The demo's enterprise account on the park: the enterprise edition pushes with an
// `enterprise` account bound to its companyCode, not with the park's admin. Created (or its
// password set again) through the park's own API once the park edition is ready.
import { setTimeout as delay } from 'node:timers/promises'

export interface ParkAccount {
  userName: string
  password: string
  companyCode: string
}

async function post(url: string, body: unknown, token?: string): Promise<{ code: number; msg: string; data: any }> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  return (await reply.json()) as { code: number; msg: string; data: any }
}

async function ready(parkUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await fetch(`${parkUrl}/health/ready`).catch(() => undefined))?.ok) {
    if (Date.now() > deadline) throw new Error(`the park edition at ${parkUrl} was not ready within ${timeoutMs / 1000} s`)
    await delay(250)
  }
}

/** Waits for the park, then makes sure the enterprise account exists with this password. */
export async function ensureEnterpriseAccount(parkUrl: string, adminPassword: string, account: ParkAccount): Promise<void> {
  await ready(parkUrl, 120_000)
  const login = await post(`${parkUrl}/system/login`, { userName: 'admin', password: adminPassword })
  if (login.code !== 0) throw new Error(`cannot log in to the park as admin: ${login.msg}`)
  const token = login.data.token as string
  const { userName, password, companyCode } = account
  const added = await post(`${parkUrl}/system/user/add`, { userName, password, role: 'enterprise', companyCode }, token)
  if (added.code === 0) return
  // It exists (an earlier start): its password and enterprise as this start knows them.
  const updated = await post(`${parkUrl}/system/user/update`, { userName, password, role: 'enterprise', companyCode, enabled: true }, token)
  if (updated.code !== 0) throw new Error(`cannot set up the park account ${userName}: ${added.msg}; ${updated.msg}`)
}
