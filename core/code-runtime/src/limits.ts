/**
 * Limits of one program run (config `tools.code`). Every field is a positive
 * integer; a bad value is a host programming error and throws.
 */
export interface CodeLimits {
  /** wall-clock deadline of a run, counted from `run()` */
  timeoutMs: number
  /** heap the isolate may grow by (WebAssembly memory beyond its 16 MiB base image) */
  memoryBytes: number
  /** sub-calls per run; the next one rejects with code `LIMIT` */
  maxSubCalls: number
  /** sub-calls in flight at once; the rest wait in a queue */
  maxParallelSubCalls: number
  /** UTF-8 bytes of any value crossing the bridge: the program, arguments, results, the return value */
  maxValueBytes: number
  /** UTF-8 bytes of captured `console` output; the rest is cut with a marker */
  maxLogBytes: number
}

export const defaultCodeLimits: Readonly<CodeLimits> = Object.freeze({
  timeoutMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  maxSubCalls: 1000,
  maxParallelSubCalls: 8,
  maxValueBytes: 1024 * 1024,
  maxLogBytes: 64 * 1024,
})

const limitNames = Object.keys(defaultCodeLimits) as (keyof CodeLimits)[]
const maxTimeoutMs = 2 ** 31 - 1

/** Layer partial limits over a base, rejecting unknown names and non-positive or non-integer values. */
export function resolveLimits(base: Readonly<CodeLimits>, over: Partial<CodeLimits> | undefined): CodeLimits {
  const limits = { ...base }
  if (over === undefined) return limits
  for (const key of Object.keys(over)) {
    // limits come from configuration: an own-name check, never `in`
    if (!limitNames.includes(key as keyof CodeLimits)) throw new TypeError(`unknown code limit ${JSON.stringify(key)}`)
    const value = over[key as keyof CodeLimits]
    if (value === undefined) continue
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`code limit ${key} must be a positive integer, got ${String(value)}`)
    }
    // a longer delay overflows setTimeout, which then fires after 1 ms
    if (key === 'timeoutMs' && value > maxTimeoutMs) {
      throw new RangeError(`code limit timeoutMs must be at most ${maxTimeoutMs}, got ${value}`)
    }
    limits[key as keyof CodeLimits] = value
  }
  return limits
}
