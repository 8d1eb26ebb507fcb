// FIELDS.md cross-field rules: 1002 with a message naming the fields, on add and on update (where
// the rule holds for the stored record merged with the change).
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const call = (path: string, body: unknown) => service.call(path, body, { token })

async function refused(t: any, path: string, body: unknown, fields: RegExp) {
  const reply = await call(path, body)
  t.equal(reply.body.code, 1002, JSON.stringify(body).slice(0, 80))
  t.match(reply.body.msg, fields)
}

await call('/prevent/riskUnit/add', record('riskUnit', 'RU-1'))
await call('/prevent/riskEvents/add', record('riskEvents', 'RE-1', { riskUnitId: 'RU-1' }))

t.test('riskMeasures: the prefix of classify2 equals classify1', async (t) => {
  await refused(
    t,
    '/prevent/riskMeasures/add',
    record('riskMeasures', 'RM-1', { riskEventId: 'RE-1', classify1: '1', classify2: '2-1' }),
    /classify1, classify2/,
  )
  t.equal(
    (await call('/prevent/riskMeasures/add', record('riskMeasures', 'RM-1', { riskEventId: 'RE-1', classify1: '2', classify2: '2-3' })))
      .body.code,
    0,
  )
  await refused(t, '/prevent/riskMeasures/update', { id: 'RM-1', classify1: '3' }, /classify1, classify2/)
  t.equal((await call('/prevent/riskMeasures/update', { id: 'RM-1', classify1: '3', classify2: '3-4' })).body.code, 0)
})

t.test('troubleshootTask: work times when the unit is 小时; taskNum when workType is not 0', async (t) => {
  const task = (id: string, overrides: object) => record('troubleshootTask', id, { riskMeasureId: 'RM-1', ...overrides })
  await refused(
    t,
    '/prevent/troubleshootTask/add',
    task('TT-1', { checkCycleUnit: '小时', workStartTime: null, workEndTime: null }),
    /workStartTime, workEndTime: required when checkCycleUnit is 小时/,
  )
  await refused(
    t,
    '/prevent/troubleshootTask/add',
    task('TT-1', { checkCycleUnit: '天', workType: '1', taskNum: null }),
    /taskNum: required when workType is not 0/,
  )
  t.equal(
    (
      await call(
        '/prevent/troubleshootTask/add',
        task('TT-1', { checkCycleUnit: '天', workType: '0', taskNum: null, workStartTime: null, workEndTime: null }),
      )
    ).body.code,
    0,
  )
  await refused(t, '/prevent/troubleshootTask/update', { id: 'TT-1', checkCycleUnit: '小时' }, /workStartTime, workEndTime/)
  t.equal(
    (
      await call('/prevent/troubleshootTask/update', {
        id: 'TT-1',
        checkCycleUnit: '小时',
        workStartTime: '08:00:00',
        workEndTime: '17:00:00',
      })
    ).body.code,
    0,
  )
})

t.test('troubleshootInfo: acceptance person and time when dangerState is 9', async (t) => {
  const info = record('troubleshootInfo', 'TI-1', { dangerState: '9', checkAcceptPerson: null, checkAcceptTime: null })
  await refused(t, '/prevent/troubleshootInfo/add', info, /checkAcceptPerson, checkAcceptTime: required when dangerState is 9/)
  t.equal((await call('/prevent/troubleshootInfo/add', { ...info, dangerState: '1' })).body.code, 0)
  await refused(t, '/prevent/troubleshootInfo/update', { id: 'TI-1', dangerState: '9' }, /checkAcceptPerson, checkAcceptTime/)
  t.equal(
    (
      await call('/prevent/troubleshootInfo/update', {
        id: 'TI-1',
        dangerState: '9',
        checkAcceptPerson: 'Li Wei',
        checkAcceptTime: '2026-11-21',
      })
    ).body.code,
    0,
  )
})

t.test('ticketBaseInfo: plan end after start; workLevel by work type; contractorOrg for contractor work', async (t) => {
  // The example is a hot work ticket of level 2.
  const ticket = (id: string, overrides: Record<string, unknown>) => record('ticketBaseInfo', id, overrides)
  await refused(
    t,
    '/prevent/ticketBaseInfo/add',
    ticket('TK-1', { planStartTime: '2026-11-21T10:00:00+08:00', planEndTime: '2026-11-21T09:00:00+08:00' }),
    /planEndTime: must be after planStartTime/,
  )
  await refused(t, '/prevent/ticketBaseInfo/add', ticket('TK-1', { workType: '2', workLevel: '1' }), /workType, workLevel/)
  await refused(t, '/prevent/ticketBaseInfo/add', ticket('TK-1', { workType: '1', workLevel: '4' }), /workType, workLevel/)
  await refused(
    t,
    '/prevent/ticketBaseInfo/add',
    ticket('TK-1', { isContractorWork: '1', contractorOrg: null }),
    /contractorOrg: required when isContractorWork is 1/,
  )
  t.equal(
    (await call('/prevent/ticketBaseInfo/add', ticket('TK-1', { workType: '4', workLevel: '4', isContractorWork: '0' }))).body.code,
    0,
  )
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-1', workType: '5' }, /workType, workLevel/)
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-1', planEndTime: '2000-01-01T00:00:00Z' }, /planEndTime/)
})

t.test('ticketBaseInfo: hot work, work at height and lifting require workLevel, on add and when an update changes workType', async (t) => {
  const ticket = (id: string, overrides: Record<string, unknown>) => record('ticketBaseInfo', id, overrides)
  const required = /^workLevel: required when workType is 1 \(hot work\), 4 \(work at height\) or 5 \(lifting\)$/
  await refused(t, '/prevent/ticketBaseInfo/add', ticket('TK-L1', { workType: '1', workLevel: null }), required)
  await refused(t, '/prevent/ticketBaseInfo/add', ticket('TK-L1', { workType: '4', workLevel: undefined }), required)
  await refused(t, '/prevent/ticketBaseInfo/add', ticket('TK-L1', { workType: '5', workLevel: null }), required)
  t.equal(
    (await call('/prevent/ticketBaseInfo/add', ticket('TK-L1', { workType: '2', workLevel: null }))).body.code,
    0,
    'other work has none',
  )

  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-L1', workType: '1' }, required)
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-L1', workType: '4', workLevel: null }, required)
  t.equal((await call('/prevent/ticketBaseInfo/getById', { id: 'TK-L1' })).body.data.workType, '2', 'a refused update wrote nothing')
  t.equal((await call('/prevent/ticketBaseInfo/update', { id: 'TK-L1', workType: '4', workLevel: '4' })).body.code, 0)
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-L1', workLevel: null }, required)
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-L1', workType: '5' }, /^workType, workLevel: workLevel of workType 5/)
  t.equal((await call('/prevent/ticketBaseInfo/update', { id: 'TK-L1', workType: '6', workLevel: null })).body.code, 0)
})

t.test('required-when rules: blank text (Unicode white space too) is no value, on add and on update', async (t) => {
  const blanks = [' ', '\u3000', '\u00a0', '\u3000\u00a0 \t']
  for (const blank of blanks) {
    await refused(
      t,
      '/prevent/ticketBaseInfo/add',
      record('ticketBaseInfo', 'TK-B1', { isContractorWork: '1', contractorOrg: blank }),
      /^contractorOrg: required when isContractorWork is 1$/,
    )
    await refused(
      t,
      '/prevent/troubleshootInfo/add',
      record('troubleshootInfo', 'TI-B1', { dangerState: '9', checkAcceptPerson: blank, checkAcceptTime: '2026-11-21' }),
      /^checkAcceptPerson: required when dangerState is 9$/,
    )
    await refused(
      t,
      '/prevent/troubleshootTask/add',
      record('troubleshootTask', 'TT-B1', { riskMeasureId: 'RM-1', checkCycleUnit: '天', workType: '1', taskNum: blank }),
      /^taskNum: required when workType is not 0$/,
    )
  }

  t.equal(
    (
      await call(
        '/prevent/ticketBaseInfo/add',
        record('ticketBaseInfo', 'TK-B1', { isContractorWork: '1', contractorOrg: '\u3000Acme\u3000' }),
      )
    ).body.code,
    0,
    'text with white space around it is a value',
  )
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-B1', contractorOrg: '\u3000' }, /^contractorOrg: required/)
  t.equal((await call('/prevent/ticketBaseInfo/getById', { id: 'TK-B1' })).body.data.contractorOrg, '\u3000Acme\u3000')
  t.equal((await call('/prevent/ticketBaseInfo/update', { id: 'TK-B1', isContractorWork: '0', contractorOrg: '\u3000' })).body.code, 0)
  await refused(t, '/prevent/ticketBaseInfo/update', { id: 'TK-B1', isContractorWork: '1' }, /^contractorOrg: required/)

  t.equal(
    (await call('/prevent/troubleshootInfo/add', record('troubleshootInfo', 'TI-B1', { dangerState: '1', checkAcceptPerson: null }))).body
      .code,
    0,
  )
  await refused(
    t,
    '/prevent/troubleshootInfo/update',
    { id: 'TI-B1', dangerState: '9', checkAcceptPerson: '\u00a0', checkAcceptTime: '2026-11-21' },
    /^checkAcceptPerson: required when dangerState is 9$/,
  )
})

t.test('trainBaseInfo: train end after start; passCount ≤ participantCount', async (t) => {
  await refused(
    t,
    '/prevent/trainBaseInfo/add',
    record('trainBaseInfo', 'TB-1', { participantCount: 3, passCount: 4 }),
    /passCount, participantCount/,
  )
  await refused(
    t,
    '/prevent/trainBaseInfo/add',
    record('trainBaseInfo', 'TB-1', { trainStartTime: '2026-11-21T10:00:00+08:00', trainEndTime: '2026-11-21T10:00:00+08:00' }),
    /trainEndTime/,
  )
  await refused(
    t,
    '/prevent/trainBaseInfo/add',
    record('trainBaseInfo', 'TB-1', { trainStartTime: '2026-11-21T08:00:00+08', trainEndTime: '2026-11-21T12:00:00+08:00' }),
    /^trainStartTime: must be a valid ISO 8601 instant/,
  )
  t.equal((await call('/prevent/trainBaseInfo/add', record('trainBaseInfo', 'TB-1', { participantCount: 5, passCount: 5 }))).body.code, 0)
  await refused(t, '/prevent/trainBaseInfo/update', { id: 'TB-1', participantCount: 4 }, /passCount, participantCount/)
})

t.test('a batch item breaking a rule fails alone with 1002', async (t) => {
  const reply = await call('/prevent/trainBaseInfo/add-batch', {
    list: [record('trainBaseInfo', 'TB-2', { participantCount: 1, passCount: 2 }), record('trainBaseInfo', 'TB-3')],
  })
  t.same(reply.body.data.succeeded, ['TB-3'])
  t.same(
    reply.body.data.failed.map((item: any) => [item.index, item.code]),
    [[0, 1002]],
  )
})

t.end()
