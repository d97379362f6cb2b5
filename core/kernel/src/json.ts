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

/** The state of one `snapshot` walk: counters, and the path and ancestors of the value being copied. */
interface Walk {
  nodes: number
  maxNodes: number
  maxDepth: number
  freeze: boolean
  /** `path[d]` is the key that leads from the ancestor at depth d to the one at d + 1 */
  path: Array<string | number>
  ancestors: object[]
}

function failAt(walk: Walk, depth: number, what: string, key?: string | number): never {
  const keys = walk.path.slice(0, depth)
  if (key !== undefined) keys.push(key)
  throw new NotJsonError(keys.reduce<string>((path, k) => pathOf(path, k), ''), what)
}

function copyValue(walk: Walk, input: unknown, depth: number): JsonValue {
  if (++walk.nodes > walk.maxNodes) failAt(walk, depth, `more than ${walk.maxNodes} values`)
  switch (typeof input) {
    case 'string':
    case 'boolean':
      return input
    case 'number':
      if (!Number.isFinite(input)) failAt(walk, depth, describeValue(input))
      return input === 0 ? 0 : input
    case 'object':
      return input === null ? null : copyObject(walk, input, depth)
    default:
      return failAt(walk, depth, describeValue(input))
  }
}

function copyObject(walk: Walk, input: object, depth: number): JsonValue {
  if (depth >= walk.maxDepth) failAt(walk, depth, `nesting deeper than ${walk.maxDepth}`)
  // the ancestors are few (the depth is capped): a scan beats a Set allocated per call
  const ancestors = walk.ancestors
  for (let d = 0; d < depth; d++) if (ancestors[d] === input) failAt(walk, depth, 'a cycle')
  ancestors[depth] = input
  if (Array.isArray(input)) {
    const out: JsonValue[] = new Array(input.length)
    for (let i = 0; i < input.length; i++) {
      if (!Object.hasOwn(input, i)) failAt(walk, depth, 'a hole in an array', i)
      walk.path[depth] = i
      out[i] = copyValue(walk, input[i], depth + 1)
    }
    return walk.freeze ? (Object.freeze(out) as JsonValue[]) : out
  }
  const proto = Object.getPrototypeOf(input)
  if (proto !== Object.prototype && proto !== null) failAt(walk, depth, describeValue(input))
  if (Object.getOwnPropertySymbols(input).length) failAt(walk, depth, 'an object with symbol keys')
  const out: { [key: string]: JsonValue } = {}
  const keys = Object.keys(input)
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]
    const desc = Object.getOwnPropertyDescriptor(input, key)!
    if (!('value' in desc)) failAt(walk, depth, 'an accessor property', key)
    walk.path[depth] = key
    const child = copyValue(walk, desc.value, depth + 1)
    // a hostile "__proto__" key is kept as data instead of re-prototyping the copy
    if (key === '__proto__') Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true })
    else out[key] = child
  }
  return walk.freeze ? Object.freeze(out) : out
}

/**
 * Deep-copy a value that must be plain JSON, rejecting everything JSON would
 * silently change: BigInt, functions, symbols, `undefined` members, `NaN`,
 * `Infinity`, `Date`, `Map`, class instances, cycles, sparse arrays and
 * accessors. `-0` becomes `0` (what JSON says anyway). An own `__proto__` key is
 * kept as plain data on the copy, never as its prototype. A shared (not
 * cyclic) object is copied once per place it appears.
 */
export function snapshot<T = JsonValue>(value: unknown, limits: SnapshotLimits = {}): T {
  const walk: Walk = {
    nodes: 0,
    maxNodes: limits.maxNodes ?? 100_000,
    maxDepth: limits.maxDepth ?? 64,
    freeze: limits.freeze === true,
    path: [],
    ancestors: [],
  }
  return copyValue(walk, value, 0) as T
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

/**
 * Whether two JSON values are equal, object keys in any order: what
 * `canonicalJson(a) === canonicalJson(b)` says, without building either text.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false
  }
  return true
}

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  let text: string
  if (Array.isArray(value)) {
    text = '['
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + canonicalJson(value[i])
    return text + ']'
  }
  const keys = Object.keys(value).sort()
  text = '{'
  for (let i = 0; i < keys.length; i++) {
    text += (i ? ',' : '') + JSON.stringify(keys[i]) + ':' + canonicalJson((value as Record<string, unknown>)[keys[i]])
  }
  return text + '}'
}
