// The one step before Redocly's bundle: a resource's file under openapi/src/paths/ that names shared
// templates (`templates:`) holds only the resource's own values (`resource:`); here each operation
// and shape of the templates it declares is instantiated with them, and written where a plain
// Redocly $ref finds it (the paths file itself, and the resource's schema file), in a copy of
// openapi/src/. Why: the nine resources share these operations word for word, and written once they
// cannot drift apart, while the served document stays a plain bundle with every example in place.
// The templates are hand-written YAML; the placeholders (docs/contract-templates.md):
//   "{{name}}" alone       the value itself (object, list, number), rendered in turn; an entry whose value is not set is left out
//   "{{...name}}" in a list  the items of the list `name`
//   {{name}} in text       the text of `name` (a dotted name reads into it); not set is an error
//   {{#name}}..{{/name}}   kept only when `name` is set ({{^name}} only when not); a key that renders empty is left out
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse, stringify } from 'yaml'

type Values = Record<string, unknown>
type Node = unknown

const LEFT_OUT = Symbol('left out')
const WHOLE = /^\{\{(\.\.\.)?([\w.]+)\}\}$/
const SECTION = /\{\{([#^])([\w.]+)\}\}([\s\S]*?)\{\{\/\2\}\}/g

function lookup(values: Values, name: string): unknown {
  return name.split('.').reduce<unknown>((node, key) => (node as Values | undefined)?.[key], values)
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== '' && !(Array.isArray(value) && value.length === 0)
}

function renderText(text: string, values: Values, where: string): string {
  let out = text
  for (let before = ''; before !== out;) {
    before = out
    out = out.replace(SECTION, (_, kind: string, name: string, inner: string) =>
      isSet(lookup(values, name)) === (kind === '#') ? inner : '',
    )
  }
  return out.replace(/\{\{([\w.]+)\}\}/g, (_, name: string) => {
    const value = lookup(values, name)
    if (value === undefined || value === null || typeof value === 'object') throw new Error(`${where}: {{${name}}} is not a text value`)
    return String(value)
  })
}

function render(node: Node, values: Values, where: string): Node | typeof LEFT_OUT {
  if (typeof node === 'string') {
    const whole = WHOLE.exec(node)
    if (!whole) return renderText(node, values, where)
    const value = lookup(values, whole[2])
    // A value may hold placeholders itself (the template's shared ones do).
    return isSet(value) || typeof value === 'number' ? render(structuredClone(value), values, where) : LEFT_OUT
  }
  if (Array.isArray(node)) {
    return node.flatMap((item) => {
      const spread = typeof item === 'string' ? WHOLE.exec(item) : null
      if (spread?.[1]) return structuredClone((lookup(values, spread[2]) as unknown[] | undefined) ?? [])
      const rendered = render(item, values, where)
      return rendered === LEFT_OUT ? [] : [rendered]
    })
  }
  if (node && typeof node === 'object') {
    const out: Values = {}
    for (const [key, value] of Object.entries(node)) {
      const name = renderText(key, values, where)
      if (name === '') continue
      const rendered = render(value, values, `${where}/${name}`)
      if (rendered !== LEFT_OUT) out[name] = rendered
    }
    return out
  }
  return node
}

const readYaml = async (file: string): Promise<Values> => parse(await readFile(file, 'utf8'), { merge: true }) as Values

interface Declaration {
  templates: { operations: string; shapes?: string }
  resource: Values & { module: string; key: string; Key: string; operations?: string[]; shapes?: string[] }
}

/** A resource's paths file and schema file, with the templates' operations and shapes added. */
async function instantiate(pathsFile: string, file: Values & Declaration): Promise<void> {
  const { templates, resource, ...ownPaths } = file
  const here = dirname(pathsFile)
  const operations = await readYaml(join(here, templates.operations))
  const schemaFile = join(here, `../resources/${resource.key}.yaml`)
  const schemaText = await readFile(schemaFile, 'utf8')
  const schemas = parse(schemaText, { merge: true }) as Values & { fields: Values }
  const fieldNames = Object.keys(schemas.fields)
  // The record of the examples: the add shape's first example (or the resource's own `record`).
  const record = (resource.record ?? (schemas[resource.Key] as { examples?: Values[] } | undefined)?.examples?.[0] ?? {}) as Values
  const shared = (operations.shared ?? {}) as Values
  const serverKept = (shared.serverKept ?? {}) as Values
  const article = /^[aeiou]/i.test(String(resource.one)) ? 'an' : 'a'
  const values: Values = {
    ...shared,
    a: article,
    A: article.replace('a', 'A'),
    ...resource,
    record,
    // The add example as reads answer it: every field (null when unset), then the server-kept ones.
    read: {
      ...Object.fromEntries(fieldNames.map((name) => [name, record[name] ?? null])),
      ...serverKept,
      ...((resource.computed as { example?: Values } | undefined)?.example ?? {}),
    },
    fieldNames,
    fieldList: [...fieldNames, ...Object.keys(serverKept)].join(', '),
  }
  const pick = (all: Values, names: string[] | undefined, what: string) =>
    (names ?? Object.keys(all)).map((name) => {
      if (!(name in all)) throw new Error(`${pathsFile}: no ${what} ${name} in the template`)
      return [name, all[name]] as const
    })
  const paths: Values = {}
  for (const [name, operation] of pick(operations.operations as Values, resource.operations, 'operation')) {
    const path = `/${resource.module}/${resource.key}/${name}`
    paths[path] = render(operation, values, `${pathsFile} ${path}`)
  }
  await writeFile(pathsFile, stringify({ ...paths, ...ownPaths }, { aliasDuplicateObjects: false, lineWidth: 0 }))
  if (!templates.shapes) return
  const shapeTemplate = await readYaml(join(here, templates.shapes))
  const shapes = Object.fromEntries(
    pick(
      shapeTemplate,
      resource.shapes?.map((shape) => `{{Key}}${shape}`),
      'shape',
    ).map(([name, shape]) => [renderText(name, values, schemaFile), render(shape, values, `${schemaFile} ${name}`)]),
  )
  await writeFile(schemaFile, `${schemaText}\n${stringify(shapes, { aliasDuplicateObjects: false, lineWidth: 0 })}`)
}

/** A copy of `source` (openapi/src/) with every templated resource instantiated; answers its directory. */
export async function instantiateTemplates(source: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'openapi-src-'))
  await cp(source, copy, { recursive: true })
  try {
    const pathsDirectory = join(copy, 'paths')
    for (const name of await readdir(pathsDirectory)) {
      const file = join(pathsDirectory, name)
      const content = await readYaml(file)
      if (content.templates) await instantiate(file, content as Values & Declaration)
    }
    return copy
  } catch (error) {
    await rm(copy, { recursive: true, force: true })
    throw error
  }
}
