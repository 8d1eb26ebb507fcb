// The text an Idempotency-Key's body is hashed from: JSON with object keys sorted, so the same body
// hashes alike however its keys were ordered (array order counts). Written without recursion: a
// body may nest as deep as its size allows.

type Work = { value: unknown } | { text: string }

export function canonicalJson(value: unknown): string {
  const parts: string[] = []
  // Work items: a value to write, or a piece of text already decided (a bracket, a comma, a key).
  const stack: Work[] = [{ value }]
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('text' in item) {
      parts.push(item.text)
      continue
    }
    const current = item.value
    if (Array.isArray(current)) {
      const items: Work[] = [{ text: '[' }]
      current.forEach((element: unknown, index) => items.push(...(index > 0 ? [{ text: ',' }] : []), { value: element }))
      items.push({ text: ']' })
      for (let index = items.length - 1; index >= 0; index--) stack.push(items[index])
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      const items: Work[] = [{ text: '{' }]
      entries.forEach(([key, child], index) => items.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: child }))
      items.push({ text: '}' })
      for (let index = items.length - 1; index >= 0; index--) stack.push(items[index])
    } else {
      parts.push(JSON.stringify(current) ?? 'null')
    }
  }
  return parts.join('')
}
