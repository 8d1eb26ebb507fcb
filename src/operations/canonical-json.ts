// JSON with object keys sorted, so the same body hashes alike however its keys were ordered
// (Idempotency-Key). Written without recursion: a body may nest as deep as its size allows.

export function canonicalJson(value: unknown): string {
  const parts: string[] = []
  // Work items: a value to write, or a piece of text already decided (a bracket, a comma, a key).
  const stack: ({ value: unknown } | { text: string })[] = [{ value }]
  while (stack.length > 0) {
    const item = stack.pop()!
    if ('text' in item) {
      parts.push(item.text)
      continue
    }
    const current = item.value
    if (Array.isArray(current)) {
      const items: ({ value: unknown } | { text: string })[] = [{ text: '[' }]
      current.forEach((element, index) => items.push(...(index > 0 ? [{ text: ',' }] : []), { value: element }))
      items.push({ text: ']' })
      for (let index = items.length - 1; index >= 0; index--) stack.push(items[index])
    } else if (current !== null && typeof current === 'object') {
      const record = current as Record<string, unknown>
      const items: ({ value: unknown } | { text: string })[] = [{ text: '{' }]
      Object.keys(record)
        .sort()
        .forEach((key, index) => items.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: record[key] }))
      items.push({ text: '}' })
      for (let index = items.length - 1; index >= 0; index--) stack.push(items[index])
    } else {
      parts.push(JSON.stringify(current) ?? 'null')
    }
  }
  return parts.join('')
}
