// The window of a read of readings, `from <= time < to`: `to` before `from` is a mistake the caller
// hears of (1002), as on `/system/indicators`; `to` equal to `from` is an empty window.
import { instantSeconds } from '../../contract/storable.ts'
import { BusinessError, Code } from '../../errors.ts'
import { message } from '../../messages/message.ts'

/** 1002 when the instant `to` is before the instant `from` (both valid instants, as the schema checked). */
export function checkWindow(window: { from: string; to: string }): void {
  const from = instantSeconds(window.from)
  const to = instantSeconds(window.to)
  if (from !== undefined && to !== undefined && to < from) throw new BusinessError(Code.badParameter, message('toBeforeFrom'))
}
