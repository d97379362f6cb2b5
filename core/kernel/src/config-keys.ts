/**
 * Unknown config keys are an error naming the key (DESIGN §4); schemastery's
 * `Schema.object` keeps them. One check for every service and plugin config.
 */
import { KernelError } from './errors.js'

/** What the check reads of a schemastery schema: its kind and, for an object, its keys. */
export interface KeyedSchema {
  type?: string
  dict?: Record<string, KeyedSchema>
}

/** Throw `INVALID_CONFIG` naming the first key (as a dotted path under `path`) that `schema` does not know. */
export function rejectUnknownKeys(schema: KeyedSchema, value: unknown, path: string): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return
  if (schema.type !== 'object' || !schema.dict) return
  for (const key of Object.keys(value)) {
    const where = path ? `${path}.${key}` : key
    const child = Object.hasOwn(schema.dict, key) ? schema.dict[key] : undefined
    if (!child) throw new KernelError('INVALID_CONFIG', `unknown key ${where}`, { details: { path: where } })
    rejectUnknownKeys(child, (value as Record<string, unknown>)[key], where)
  }
}
