// Names from the registry written into statement text: quoted as identifiers or as string literals.
// (Values never are: they go as parameters.)

/** A column or table name of the registry, quoted. */
export const quote = (name: string) => `"${name}"`

/** A text of the registry (a resource key, a field name) as an SQL string literal. */
export const literal = (text: string) => `'${text.replace(/'/g, "''")}'`
