/**
 * The Landlock carve (landlock-read.ts) once per state of the host, not
 * once per call: listing the parents of the denied paths (/etc for
 * /etc/shadow, the home directory for ~/.ssh) and resolving every rule's
 * real path took 15 ms a call at load 12 (docs/decisions/2026-11-30-landlock-launcher.md,
 * "Read policy and protected names: where the time goes"). A cached
 * carve is used only while everything it read is unchanged: each listed
 * directory (dir-stamp.ts), every path it resolved still resolving to the
 * same real path, and each denied and allowed path still existing or not
 * as before.
 */
import { existsSync, realpathSync } from 'node:fs'
import { currentStamp, dirStamp } from '../protected/dir-stamp.js'
import { carveReadRules, type CarvedRules, type CarveInputs } from './landlock-read.js'

/** Policies (read rules, deny and allow lists) kept at once; the usual service has one or two. */
const MAX_ENTRIES = 16

interface Cached {
  result: CarvedRules
  stamps: Map<string, string>
  resolved: Map<string, string | undefined>
  exists: boolean[]
}

const cache = new Map<string, Cached>()

function resolves(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

function holds(entry: Cached, exists: readonly boolean[]): boolean {
  if (exists.some((e, i) => e !== entry.exists[i])) return false
  for (const [dir, stamp] of entry.stamps) if (currentStamp(dir) !== stamp) return false
  for (const [path, target] of entry.resolved) if (resolves(path) !== target) return false
  return true
}

/** carveReadRules, from the cache while what it read is unchanged. */
export function cachedCarve(readRules: readonly string[], deny: readonly string[], allow: readonly string[]): CarvedRules {
  const key = JSON.stringify([readRules, deny, allow])
  const exists = [...deny, ...allow].map((p) => existsSync(p))
  const hit = cache.get(key)
  // Why copies: the caller owns what it gets (Confined.hidden), the cache keeps its own
  if (hit && holds(hit, exists)) return { rules: [...hit.result.rules], hidden: [...hit.result.hidden] }
  cache.delete(key)
  const inputs: CarveInputs = { listed: [], resolved: new Map() }
  const result = carveReadRules(readRules, deny, allow, inputs)
  const stamps = new Map<string, string>()
  const now = Date.now()
  for (const dir of inputs.listed) {
    const stamp = dirStamp(dir, now)
    if (!stamp) return result // changed just now, or gone: used once, not kept
    stamps.set(dir, stamp)
  }
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!)
  cache.set(key, { result: { rules: [...result.rules], hidden: [...result.hidden] }, stamps, resolved: inputs.resolved, exists })
  return result
}
