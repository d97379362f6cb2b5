/**
 * Every key a dsh.yml can set, read from the schemastery schemas themselves:
 * the services' sections of `KernelOptionsSchema` and each bundled plugin's
 * `Config`. `dsh init` comments its file from this list, and a test keeps
 * docs/configuration.md equal to it, so a key added to a schema without a
 * description, or missing from the docs, is caught.
 */
import type Schema from 'schemastery'
import { BUNDLED, importPlugin } from '../plugins/import-plugin.js'
import { KernelOptionsSchema } from '../kernel/options.js'

export interface ConfigKey {
  /** the key's path inside its section, `code.timeoutMs` */
  path: string
  /** a readable type: `integer ≥ 1`, `"off" | "on"`, `string[]` */
  type: string
  /** the default as JSON, if the schema has one */
  default?: string
  description?: string
  schema: Schema
}

export interface ConfigSection {
  /** `tools`, `sandbox`, … for services; the short name for plugins; `` for the top level */
  name: string
  kind: 'service' | 'plugin'
  /** the plugin's package (plugins only) */
  package?: string
  keys: ConfigKey[]
}

function bounds(meta: Record<string, any>): string {
  const { min, max } = meta
  if (min !== undefined && max !== undefined) return ` ${min}–${max}`
  if (min !== undefined) return ` ≥ ${min}`
  if (max !== undefined) return ` ≤ ${max}`
  return ''
}

export function typeOf(schema: Schema): string {
  const meta = (schema.meta ?? {}) as Record<string, any>
  switch (schema.type) {
    case 'number':
      return `${meta.step === 1 ? 'integer' : 'number'}${bounds(meta)}`
    case 'string':
      return `string${meta.min !== undefined ? ` (at least ${meta.min} characters)` : ''}`
    case 'const':
      return JSON.stringify(schema.value)
    case 'union':
      return (schema.list ?? []).map(typeOf).join(' | ')
    case 'array': {
      const inner = typeOf(schema.inner!)
      return inner.includes(' ') ? `(${inner})[]` : `${inner}[]`
    }
    case 'dict':
      return `map of ${typeOf(schema.inner!)}`
    case 'transform':
      return typeOf(schema.inner!)
    default:
      return schema.type
  }
}

/** The leaf keys of an object schema, nested objects flattened to dotted paths. */
export function configKeys(schema: Schema, prefix = ''): ConfigKey[] {
  const keys: ConfigKey[] = []
  for (const [name, child] of Object.entries(schema.dict ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name
    if (child.type === 'object' && child.dict) {
      keys.push(...configKeys(child, path))
      continue
    }
    const meta = (child.meta ?? {}) as Record<string, any>
    keys.push({
      path,
      type: typeOf(child),
      ...(meta.default !== undefined ? { default: JSON.stringify(meta.default) } : {}),
      ...(meta.description ? { description: String(meta.description) } : {}),
      schema: child,
    })
  }
  return keys
}

/** The service sections a dsh.yml has: `tools`, `approval`, `sandbox`, and the top-level keys. */
export function serviceSections(): ConfigSection[] {
  const sections: ConfigSection[] = []
  const top: ConfigKey[] = []
  for (const [name, child] of Object.entries(KernelOptionsSchema.dict ?? {})) {
    // plugins is the map of plugins itself; configFile cannot be set inside a config file
    if (name === 'plugins' || name === 'configFile') continue
    if (child.type === 'object' && child.dict) sections.push({ name, kind: 'service', keys: configKeys(child) })
    else top.push(...configKeys({ dict: { [name]: child } } as unknown as Schema))
  }
  return [{ name: '', kind: 'service', keys: top }, ...sections]
}

/** Each bundled plugin's section, from its `Config`. */
export async function pluginSections(baseDir: string): Promise<ConfigSection[]> {
  const sections: ConfigSection[] = []
  for (const name of BUNDLED) {
    const plugin = await importPlugin(name, baseDir)
    sections.push({ name, kind: 'plugin', package: `@dsh/${name}`, keys: plugin.Config ? configKeys(plugin.Config) : [] })
  }
  return sections
}
