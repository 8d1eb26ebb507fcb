// FIELDS.md state machines, over every pair of states: a listed move is 0, the same state again is
// not a move (0), anything else is 1011 naming the move.
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const { document } = loadOpenApi()

const machines = [
  {
    resource: 'troubleshootInfo',
    path: '/prevent/troubleshootInfo',
    field: 'dangerState',
    allowed: { '0': ['1'], '1': ['9', '0'], '9': [] } as Record<string, string[]>,
    // dangerState 9 needs its acceptance fields; set them on every record so only the move matters
    base: { checkAcceptPerson: 'Li Wei', checkAcceptTime: '2026-11-20' },
  },
  {
    resource: 'ticketBaseInfo',
    path: '/prevent/ticketBaseInfo',
    field: 'ticketStatus',
    allowed: { '1': ['2', '4'], '2': ['3', '4'], '3': [], '4': [] } as Record<string, string[]>,
    base: {},
  },
]

for (const machine of machines) {
  t.test(`${machine.resource}.${machine.field}: the document declares the machine the rules enforce`, async (t) => {
    const schemaName = machine.resource[0].toUpperCase() + machine.resource.slice(1)
    t.same(document.components.schemas[schemaName]['x-state-machine'], { field: machine.field, transitions: machine.allowed })
  })

  t.test(`${machine.resource}.${machine.field}: every pair of states`, async (t) => {
    const states = Object.keys(machine.allowed)
    for (const from of states) {
      for (const to of states) {
        const id = `${machine.resource}-${from}-${to}`
        const added = await service.call(`${machine.path}/add`, record(machine.resource, id, { ...machine.base, [machine.field]: from }), {
          token,
        })
        t.equal(added.body.code, 0, `add in state ${from}`)
        const moved = await service.call(`${machine.path}/update`, { id, [machine.field]: to }, { token })
        const legal = from === to || machine.allowed[from].includes(to)
        if (legal) {
          t.equal(moved.body.code, 0, `${from} -> ${to} is allowed`)
        } else {
          t.same(
            moved.body,
            { msg: `${machine.field}: illegal transition ${from} -> ${to}`, code: 1011, data: null, success: false },
            `${from} -> ${to} is refused`,
          )
        }
        const stored = await service.call(`${machine.path}/getById`, { id }, { token })
        t.equal(stored.body.data[machine.field], legal ? to : from, 'the stored state')
      }
    }
  })
}

t.end()
