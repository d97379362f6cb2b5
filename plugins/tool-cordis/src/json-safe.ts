/**
 * Turning a plugin config into something JSON can carry, without throwing and
 * without leaking what looks like a secret: the snapshot goes to a model
 * (`cordis_inspect`) as readily as to a terminal.
 */
import type { JsonValue } from '@dsh/kernel'

// a config key with one of these in its name holds a credential more often than not
const SECRET = /secret|token|passw(or)?d|api[-_]?key|credential|private[-_]?key|authorization|cookie/i
const MAX_DEPTH = 8
const MAX_ITEMS = 200

export const REDACTED = '[redacted]'

function describe(value: object | ((...args: any[]) => any)): string {
  if (typeof value === 'function') return `[function${value.name ? ` ${value.name}` : ''}]`
  const name = Object.getPrototypeOf(value)?.constructor?.name
  return `[${name || 'object'}]`
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * A JSON copy of `value`: plain objects and arrays are copied (own enumerable
 * string keys only; a key that looks like a secret is redacted), anything else
 * that JSON cannot carry is described in brackets (`[function]`, `[Socket]`,
 * `[circular]`, `[BigInt 12]`, `[NaN]`).
 */
export function jsonSafe(value: unknown): JsonValue {
  const seen = new Set<object>()
  const copy = (input: unknown, depth: number): JsonValue => {
    switch (typeof input) {
      case 'string':
      case 'boolean':
        return input
      case 'number':
        return Number.isFinite(input) ? input : `[${input}]`
      case 'bigint':
        return `[BigInt ${input}]`
      case 'undefined':
        return null
      case 'symbol':
        return `[${input.toString()}]`
      case 'function':
        return describe(input as (...args: any[]) => any)
    }
    if (input === null) return null
    const object = input as object
    if (seen.has(object)) return '[circular]'
    if (depth >= MAX_DEPTH) return '[too deep]'
    if (Array.isArray(object)) {
      seen.add(object)
      const out = object.slice(0, MAX_ITEMS).map((item) => copy(item, depth + 1))
      if (object.length > MAX_ITEMS) out.push(`[${object.length - MAX_ITEMS} more]`)
      seen.delete(object)
      return out
    }
    if (!isPlain(object)) return describe(object)
    seen.add(object)
    // a null-prototype target: a key named `__proto__` stays plain data
    const out: { [key: string]: JsonValue } = Object.create(null)
    const keys = Object.keys(object)
    for (const key of keys.slice(0, MAX_ITEMS)) {
      const descriptor = Object.getOwnPropertyDescriptor(object, key)
      // a getter is code: reading it could change something, so it is only named
      if (!descriptor || !('value' in descriptor)) {
        out[key] = '[getter]'
        continue
      }
      const item = descriptor.value
      // a credential is a string (or a structure of them); a number or flag next to the word (maxTokens) is not
      const hides = (typeof item === 'string' && item !== '') || (typeof item === 'object' && item !== null)
      out[key] = SECRET.test(key) && hides ? REDACTED : copy(item, depth + 1)
    }
    if (keys.length > MAX_ITEMS) out['…'] = `[${keys.length - MAX_ITEMS} more keys]`
    seen.delete(object)
    return out
  }
  return copy(value, 0)
}
