/**
 * `compute` remembering its last argument and answer. For pure checks of a batch's values: the
 * readings of a batch mostly share one instant, which the format, the storable rule and the
 * ingest each read.
 */
export function rememberingLast<Argument, Result>(compute: (argument: Argument) => Result): (argument: Argument) => Result {
  let last: { argument: Argument; result: Result } | undefined
  return (argument) => {
    if (last === undefined || last.argument !== argument) last = { argument, result: compute(argument) }
    return last.result
  }
}
