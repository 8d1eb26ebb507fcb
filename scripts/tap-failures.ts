// Collects, from tap's plain TAP output read line by line, where each failing assertion sits:
// its file, its subtests and its own description. A long CI log is often shown by its tail only;
// these paths, printed just before the closing count, say what failed without the whole log.

const SUBTEST = /^((?: {4})*)# Subtest: (.*)$/
const NOT_OK = /^((?: {4})*)not ok \d+(?: - (.*?))?(?: # .*)?$/

export class TapFailures {
  readonly #open: string[] = []
  readonly #failures: string[][] = []

  /** Takes one line of the output (without its newline). */
  line(text: string): void {
    const subtest = SUBTEST.exec(text)
    if (subtest) {
      const depth = subtest[1]!.length / 4
      this.#open.length = depth
      this.#open[depth] = subtest[2]!
      return
    }
    const failure = NOT_OK.exec(text)
    if (failure) {
      const depth = failure[1]!.length / 4
      this.#failures.push([...this.#open.slice(0, depth), failure[2] ?? '(no description)'])
    }
  }

  /** Each failing assertion as `file > subtest > … > assertion`; a subtest failing only because
   *  an assertion inside it failed is not listed again. */
  paths(): string[] {
    const isParent = (path: string[]) =>
      this.#failures.some((other) => other.length > path.length && path.every((name, i) => other[i] === name))
    return this.#failures.filter((path) => !isParent(path)).map((path) => path.join(' > '))
  }
}
