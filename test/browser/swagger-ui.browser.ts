// The Swagger UI at /docs, driven in a real headless Chromium (Debian's /usr/bin/chromium through
// playwright-core; no browser is downloaded): it loads offline with no console error, lists the
// tags, logs in with "Try it out", authorises through its Authorize dialog with the token it got,
// lists monitoring equipment with "Try it out", and with the document's own examples adds a risk
// unit, uploads a PNG attachment to it and downloads it back. Run by `npm run test:browser`
// (scripts/test-browser.ts), not by `npm test`: not every machine has a browser.

import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import t from 'tap'
import { loadOpenApi, resolveRef } from '../../src/contract/openapi-document.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const CHROMIUM = '/usr/bin/chromium'
const SCREENSHOT = fileURLToPath(new URL('../artifacts/swagger-ui.png', import.meta.url))

const service = await startService(t)
const origin = new URL(service.url).origin

const browser: Browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
})
t.teardown(() => browser.close())
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } })
const page: Page = await context.newPage()
page.setDefaultTimeout(20_000)

// Offline: anything the page asks of another origin is refused, and recorded.
const elsewhere: string[] = []
await context.route('**/*', (route) => {
  if (new URL(route.request().url()).origin === origin) return route.continue()
  elsewhere.push(route.request().url())
  return route.abort()
})
const consoleErrors: string[] = []
page.on('console', (message) => {
  if (message.type() === 'error') consoleErrors.push(message.text())
})
page.on('pageerror', (error) => consoleErrors.push(String(error)))
const authorizations: string[] = []
page.on('request', (request) => {
  const authorization = request.headers().authorization
  if (new URL(request.url()).pathname === '/hazard/monitorEquip/list') authorizations.push(authorization ?? '')
})

/** Expands an operation, presses "Try it out", optionally replaces the body, executes, and returns the response body shown. */
async function tryItOut(operation: string, body?: unknown): Promise<string> {
  const block = page.locator(`#${operation}`)
  // Tags start collapsed (docExpansion none): its tag is opened first, the others closed, as a
  // reader moves from one tag to the next (the UI renders some 150 operations open at once badly).
  const name = operation.split('-')[1]
  for (const other of await page.locator('.opblock-tag[data-is-open="true"]').all()) {
    if ((await other.getAttribute('data-tag')) !== name) await other.click()
  }
  const tag = page.locator(`#operations-tag-${name}`)
  if ((await tag.getAttribute('data-is-open')) !== 'true') await tag.click()
  await block.locator('.opblock-summary').first().click()
  await block.locator('button.try-out__btn').click()
  if (body !== undefined) await block.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2))
  await block.locator('button.execute').click()
  const shown = block.locator('.live-responses-table .response-col_description pre.microlight').first()
  await shown.waitFor()
  return (await shown.textContent()) ?? ''
}

t.test('the page loads offline with no console error and lists the tags', async (t) => {
  const response = await page.goto(`${service.url}/docs`)
  t.equal(response?.status(), 200)
  await page.locator('.swagger-ui .info .title').waitFor()
  t.match(await page.locator('.swagger-ui .info .title').textContent(), /Safety-production platform API/)
  for (const tag of ['system', 'hazard', 'prevent']) {
    t.ok(await page.locator(`#operations-tag-${tag}`).isVisible(), `tag ${tag} listed`)
  }
  t.same(consoleErrors, [], 'no console error')
  t.same(elsewhere, [], 'nothing fetched from another origin')
})

let token = ''
t.test('"Try it out" on login answers a token', async (t) => {
  const shown = await tryItOut('operations-system-systemLogin', { userName: 'admin', password: ADMIN_PASSWORD })
  const answer = JSON.parse(shown)
  t.equal(answer.code, 0)
  token = answer.data.token
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/)
})

t.test('the Authorize dialog takes the token as the bearer', async (t) => {
  await page.locator('.auth-wrapper button.authorize').click()
  const dialog = page.locator('.dialog-ux .modal-ux')
  await dialog.waitFor()
  t.match(await dialog.textContent(), /bearerAuth/)
  await dialog.locator('#auth-bearer-value').fill(token)
  await dialog.getByRole('button', { name: 'Apply credentials' }).click()
  // Once authorised, the dialog says so and offers to remove the authorization.
  await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor()
  t.match(await dialog.textContent(), /Authorized/)
  await dialog.locator('button.btn-done').click()
  await dialog.waitFor({ state: 'detached' })
})

t.test('"Try it out" on hazard/monitorEquip/list answers code 0 with the bearer token', async (t) => {
  const shown = await tryItOut('operations-hazard-hazardMonitorEquipList', { pageNum: 1, pageSize: 20 })
  t.match(shown, /"code": 0/)
  t.equal(JSON.parse(shown).success, true)
  t.same(authorizations, [`Bearer ${token}`], 'the request carried the token of the dialog')
  mkdirSync(fileURLToPath(new URL('../artifacts/', import.meta.url)), { recursive: true })
  // The picture shows the request sent (curl, with the bearer) and the answer.
  await page
    .locator('#operations-hazard-hazardMonitorEquipList .live-responses-table')
    .first()
    .evaluate((table) => table.scrollIntoView({ block: 'center' }))
  await page.screenshot({ path: SCREENSHOT })
  t.same(consoleErrors, [], 'still no console error')
  t.same(elsewhere, [], 'still nothing fetched from another origin')
})

/** The first example of an operation's request body, as the document gives it. */
function requestExample(path: string): any {
  const { document } = loadOpenApi()
  const body: any = resolveRef(document, document.paths[path].post!.requestBody as { $ref?: string })
  return Object.values<any>(body.content['application/json'].examples)[0].value
}

t.test('"Try it out" with the document\u2019s examples: a risk unit, a PNG attached to it, and the PNG downloaded', async (t) => {
  const unit = JSON.parse(await tryItOut('operations-prevent-preventRiskUnitAdd'))
  t.equal(unit.code, 0, `the example risk unit added: ${unit.msg}`)
  const sent = requestExample('/prevent/riskUnit/attachment/add')
  const png = Buffer.from(sent.content, 'base64')
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the example is a real PNG')
  const uploaded = JSON.parse(await tryItOut('operations-prevent-preventRiskUnitAttachmentAdd'))
  t.equal(uploaded.code, 0, `uploaded: ${uploaded.msg}`)
  const downloaded = JSON.parse(await tryItOut('operations-prevent-preventRiskUnitAttachmentGet'))
  t.equal(downloaded.code, 0, `downloaded: ${downloaded.msg}`)
  t.match(downloaded.data, { id: sent.id, recordId: sent.recordId, fileName: sent.fileName, contentType: 'image/png', size: png.length })
  t.equal(downloaded.data.content, sent.content, 'the content shown is the file sent')
  t.equal(downloaded.data.sha256, createHash('sha256').update(png).digest('hex'))
  t.same(consoleErrors, [], 'still no console error')
  t.same(elsewhere, [], 'still nothing fetched from another origin')
})

t.end()
