/**
 * The service's restrictions (`ctx.sandbox.restrict`): what plugins add to
 * every policy it resolves — claude-code-permissions' `Read(...)` and
 * `Edit(...)` denies, the kernel's own data directory. They only narrow: a
 * restriction's paths join the policy's `readDeny`, or are kept read-only as
 * protected paths are, whatever the policy itself says; a restriction that
 * throws or answers something malformed fails the policy (the call is
 * refused), never drops out. See docs/decisions/2026-12-02-rules-feed-the-sandbox.md.
 */
import { isAbsolute } from 'node:path'
import { describeError, KernelError } from '@dsh/kernel'
import { isInside } from './policy.js'
import { realOrPlanned } from './protected-targets.js'
import type { ResolvedPolicy, SandboxRestriction, SandboxRestrictor } from './types.js'

const ID = /^[a-z][a-z0-9-]{0,63}$/

function broken(why: string, cause?: unknown): KernelError {
  return new KernelError('SANDBOX_UNAVAILABLE', `a sandbox restriction ${why}; the call is refused rather than run without it`, cause === undefined ? {} : { cause })
}

function paths(value: unknown, field: string): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw broken(`answered a ${field} that is not an array`)
  return value.map((path, i) => {
    if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) throw broken(`answered ${field}[${i}] ${JSON.stringify(path) ?? typeof path}, not an absolute path`)
    return realOrPlanned(path)
  })
}

/** `policy` with every restriction applied; the same object when there is none. */
export function applyRestrictions(policy: ResolvedPolicy, restrictors: readonly SandboxRestrictor[]): ResolvedPolicy {
  if (!restrictors.length) return policy
  const view = Object.freeze({ mode: policy.mode, workspace: policy.workspace, writableRoots: policy.writableRoots })
  const deny: string[] = []
  const readOnly: string[] = []
  const gaps: string[] = []
  const tests: Array<(path: string) => string | undefined> = []
  for (const restrictor of restrictors) {
    let got: SandboxRestriction | undefined
    try {
      got = restrictor(view)
    } catch (error) {
      throw broken(`failed: ${describeError(error)}`, error)
    }
    if (got === undefined) continue
    if (!got || typeof got !== 'object') throw broken(`answered ${JSON.stringify(got) ?? typeof got}, not a restriction`)
    deny.push(...paths(got.readDeny, 'readDeny'))
    readOnly.push(...paths(got.readOnly, 'readOnly'))
    for (const id of got.unenforced ?? []) {
      if (typeof id !== 'string' || !ID.test(id)) throw broken(`answered an unenforced id ${JSON.stringify(id) ?? typeof id}`)
      gaps.push(id)
    }
    if (got.readDenied !== undefined) {
      if (typeof got.readDenied !== 'function') throw broken('answered a readDenied that is not a function')
      tests.push(got.readDenied.bind(got))
    }
  }
  const free = [policy.workspace, ...policy.writableRoots]
  // Why the same rule as the policy's own list: hiding the workspace (or what holds it) would hide what the command works on
  const readDeny = [...new Set([...policy.readDeny, ...deny.filter((d) => !free.some((root) => isInside(d, root)))])]
  const inRoots = readOnly.filter((path) => policy.writableRoots.some((root) => isInside(root, path)))
  for (const path of inRoots) {
    if (policy.writableRoots.includes(path)) throw new KernelError('INVALID_POLICY', `sandbox policy: a restriction keeps the writable root ${path} read-only, which cannot be while it is writable`, { details: { field: 'writableRoots', path } })
  }
  const readDenied = tests.length ? (real: string) => {
    for (const test of tests) {
      const by = test(real)
      if (by) return by
    }
    return undefined
  } : undefined
  return Object.freeze({
    ...policy,
    readDeny: Object.freeze(readDeny),
    readOnlyPaths: Object.freeze([...new Set([...(policy.readOnlyPaths ?? []), ...inRoots])]),
    restrictionGaps: Object.freeze([...new Set([...(policy.restrictionGaps ?? []), ...gaps])]),
    ...(readDenied ? { readDenied } : {}),
  })
}
