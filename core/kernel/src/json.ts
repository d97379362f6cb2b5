/**
 * JSON value helpers. Arguments from a model are hostile input: they must be
 * losslessly JSON-serializable, and once accepted they are copied and frozen so
 * no listener can change what was logged and validated.
 */
export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }

export interface SnapshotLimits {
  /** deepest nesting accepted (default 64) */
  maxDepth?: number
  /** most nodes accepted (default 100,000) */
  maxNodes?: number
  /** freeze every copied object and array as it is built (one pass instead of two) */
  freeze?: boolean
}

/** Thrown by `snapshot` with the JSON path of the offending value. */
export class NotJsonError extends TypeError {
  override name = 'TypeError'
  constructor(readonly path: string, what: string) {
    super(`${what} at ${path || '$'} is not losslessly JSON-serializable`)
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'number') return String(value)
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'bigint') return 'a BigInt'
  if (typeof value === 'symbol') return 'a symbol'
  const proto = Object.getPrototypeOf(value)
  return `a ${proto?.constructor?.name ?? 'null-prototype object'}`
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent || "$"}[${key}]`
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent || '$'}.${key}` : `${parent || '$'}[${JSON.stringify(key)}]`
}

/**
 * Deep-copy a value that must be plain JSON, rejecting everything JSON would
 * silently change: BigInt, functions, symbols, `undefined` members, `NaN`,
 * `Infinity`, `Date`, `Map`, class instances, cycles, sparse arrays and
 * accessors. `-0` becomes `0` (what JSON says anyway). An own `__proto__` key is
 * kept as plain data on the copy, never as its prototype.
 */
export function snapshot<T = JsonValue>(value: unknown, limits: SnapshotLimits = {}): T {
  const maxDepth = limits.maxDepth ?? 64
  const maxNodes = limits.maxNodes ?? 100_000
  const freeze = limits.freeze === true
  let nodes = 0
  const seen = new Set<object>()
  // the keys from the root to the value being copied; a path string is built only for an error
  const keys: Array<string | number> = []
  const fail = (what: string, key?: string | number): never => {
    throw new NotJsonError([...keys, ...(key === undefined ? [] : [key])].reduce<string>((path, k) => pathOf(path, k), ''), what)
  }

  const copy = (input: unknown, depth: number): JsonValue => {
    if (++nodes > maxNodes) fail(`more than ${maxNodes} values`)
    switch (typeof input) {
      case 'string':
      case 'boolean':
        return input
      case 'number':
        if (!Number.isFinite(input)) fail(describeValue(input))
        return input === 0 ? 0 : input
      case 'object': {
        if (input === null) return null
        if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`)
        if (seen.has(input)) fail('a cycle')
        seen.add(input)
        try {
          if (Array.isArray(input)) {
            const out: JsonValue[] = new Array(input.length)
            for (let i = 0; i < input.length; i++) {
              if (!Object.hasOwn(input, i)) fail('a hole in an array', i)
              keys.push(i)
              out[i] = copy(input[i], depth + 1)
              keys.pop()
            }
            return freeze ? (Object.freeze(out) as JsonValue[]) : out
          }
          const proto = Object.getPrototypeOf(input)
          if (proto !== Object.prototype && proto !== null) fail(describeValue(input))
          if (Object.getOwnPropertySymbols(input).length) fail('an object with symbol keys')
          const out: { [key: string]: JsonValue } = {}
          for (const key of Object.keys(input)) {
            const desc = Object.getOwnPropertyDescriptor(input, key)!
            if (!('value' in desc)) fail('an accessor property', key)
            keys.push(key)
            const child = copy(desc.value, depth + 1)
            keys.pop()
            // a hostile "__proto__" key is kept as data instead of re-prototyping the copy
            if (key === '__proto__') Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true })
            else out[key] = child
          }
          return freeze ? Object.freeze(out) : out
        } finally {
          seen.delete(input)
        }
      }
      default:
        return fail(describeValue(input))
    }
  }
  return copy(value, 0) as T
}

/**
 * Freeze a value and everything reachable from it, also below objects that were
 * already (shallowly) frozen. Returns the same value.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') freezeAll(value, new Set())
  return value
}

function freezeAll(value: object, seen: Set<object>): void {
  if (seen.has(value)) return
  seen.add(value)
  Object.freeze(value)
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key]
    if (child !== null && typeof child === 'object') freezeAll(child, seen)
  }
}

/**
 * Freeze what `snapshot` returned: a fresh tree of plain objects and arrays (no
 * cycles, no sharing, no accessors), so no visited set is needed.
 */
export function freezeSnapshot<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value)
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) freezeSnapshot(value[i])
    } else {
      for (const key of Object.keys(value)) freezeSnapshot((value as Record<string, unknown>)[key])
    }
  }
  return value
}

/** `snapshot` then `deepFreeze`. */
export function frozenSnapshot<T = JsonValue>(value: unknown, limits?: SnapshotLimits): T {
  return snapshot<T>(value, { ...limits, freeze: true })
}

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`
}
