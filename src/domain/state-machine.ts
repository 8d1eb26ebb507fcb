// State machines of domain/FIELDS.md (x-state-machine in the document): a status field moves only
// along its listed transitions. The same state again is not a move.
import { BusinessError, Code } from '../errors.ts'
import type { StateMachine } from '../resources/resource-registry.ts'
import { message } from '../messages/message.ts'

/** Whether `patch` moves the machine's field from its value in `current` along a listed transition; 1011 otherwise. */
export function checkTransition(machine: StateMachine, current: Record<string, unknown>, patch: Record<string, unknown>): void {
  if (!(machine.field in patch)) return
  const from = String(current[machine.field])
  const to = String(patch[machine.field])
  if (from === to) return
  if (!(machine.transitions[from] ?? []).includes(to)) {
    throw new BusinessError(Code.illegalTransition, message('illegalTransition', { field: machine.field, from, to }))
  }
}
