/**
 * JSON Schema → a TypeScript type expression, for the generated SDK. Total:
 * anything it does not understand becomes `unknown`, never an error. Output
 * depends only on the schema, so an unchanged tool set gives identical text.
 */
type Schema = { [key: string]: any } | boolean

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const MAX_DEPTH = 12

export function propertyKey(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name)
}

/** A doc comment body made safe: no `*\/` can close the comment early. */
export function docText(text: string): string {
  return text.replace(/\*\//g, '*\\/').replace(/\r?\n/g, '\n')
}

function literal(value: unknown): string {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? JSON.stringify(value) : 'unknown'
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)]
  if (unique.includes('unknown')) return 'unknown'
  return unique.length ? unique.join(' | ') : 'never'
}

function objectType(schema: { [key: string]: any }, indent: string, depth: number): string {
  const props: Record<string, Schema> = schema.properties && typeof schema.properties === 'object' ? schema.properties : {}
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required.filter((r: unknown) => typeof r === 'string') : [])
  const inner = indent + '  '
  const lines: string[] = []
  for (const name of Object.keys(props)) {
    const prop = props[name]
    const description = typeof prop === 'object' && typeof prop.description === 'string' ? prop.description : undefined
    if (description) lines.push(`${inner}/** ${docText(description).replace(/\n/g, `\n${inner} * `)} */`)
    lines.push(`${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${toType(prop, inner, depth + 1)}`)
  }
  const extra = schema.additionalProperties
  if (extra !== undefined && extra !== false) {
    lines.push(`${inner}[key: string]: ${extra === true ? 'unknown' : toType(extra, inner, depth + 1)}`)
  }
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : extra === false ? '{}' : 'Record<string, unknown>'
}

export function toType(schema: Schema | undefined, indent = '', depth = 0): string {
  if (schema === true || schema === undefined) return 'unknown'
  if (schema === false) return 'never'
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return 'unknown'
  if ('const' in schema) return literal(schema.const)
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal))
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return union(schema[key].map((s: Schema) => toType(s, indent, depth + 1)))
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s: Schema) => toType(s, indent, depth + 1))
    return parts.includes('unknown') ? 'unknown' : parts.map((p: string) => `(${p})`).join(' & ')
  }
  const type = schema.type
  if (Array.isArray(type)) return union(type.map((t: unknown) => toType({ ...schema, type: t }, indent, depth + 1)))
  switch (type) {
    case 'string': return 'string'
    case 'number':
    case 'integer': return 'number'
    case 'boolean': return 'boolean'
    case 'null': return 'null'
    case 'array': {
      if (Array.isArray(schema.prefixItems)) return `[${schema.prefixItems.map((s: Schema) => toType(s, indent, depth + 1)).join(', ')}]`
      const item = toType(schema.items, indent, depth + 1)
      return /^[\w.<>, ]+$/.test(item) ? `${item}[]` : `Array<${item}>`
    }
    case 'object': return objectType(schema, indent, depth)
    default:
      return schema.properties ? objectType(schema, indent, depth) : 'unknown'
  }
}
