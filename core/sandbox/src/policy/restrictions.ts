/**
 * The service's restrictions (`ctx.sandbox.restrict`): what plugins add to
 * every policy it resolves — claude-code-permissions' `Read(...)` and
 * `Edit(...)` denies, the kernel's own data directory. They only narrow: a
 * restriction's paths join the policy's `readDeny`, or join its registered
 * paths, kept read-only exactly as `ctx.sandbox.protect(paths)` keeps them (a read-only path that is or holds a writable root
 * takes that root out of the writable ones: the workspace's makes the call
 * read-only), whatever the policy itself says; a restriction that
 * throws or answers something malformed fails the policy (the call is
 * refused), never drops out. See docs/decisions/2026-12-02-rules-feed-the-sandbox.md.
 */
import { isAbsolute } from 'node:path'
import { describeError, KernelError } from '@dsh/kernel'
import { isInside } from '../paths.js'
import { realOrPlanned } from '../protected/targets.js'
import type { ExecRules, ResolvedPolicy, SandboxRestriction, SandboxRestrictor } from '../types.js'

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
  const execs: ExecRules[] = []
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
    if (got.exec !== undefined) {
      if (!got.exec || typeof got.exec.check !== 'function') throw broken('answered an exec without a check()')
      if (got.exec.programs !== undefined && !(Array.isArray(got.exec.programs) && got.exec.programs.every((name) => typeof name === 'string' && name !== '' && !name.includes('\0')))) throw broken('answered exec programs that are not a list of names')
      if (got.exec.needs !== undefined && !validNeeds(got.exec.needs)) throw broken('answered exec needs that are not lists of `s<piece>` / `f<letter>` items by program name')
      execs.push(got.exec)
    }
  }
  const free = [policy.workspace, ...policy.writableRoots]
  // Why the same rule as the policy's own list: hiding the workspace (or what holds it) would hide what the command works on
  const hideable = deny.filter((d) => !free.some((root) => isInside(d, root)))
  // ...and said, since the restriction asked for more than the command is held to (the file tools still test it)
  if (hideable.length < deny.length) gaps.push('read-deny-workspace')
  const readDeny = [...new Set([...policy.readDeny, ...hideable])]
  // Why a root a read-only path is or holds stops being writable: a restriction only narrows, and that root is what it names
  // (`Edit(./**)` keeps the whole workspace read-only; the call then runs as in read-only)
  const held = (root: string) => readOnly.some((path) => isInside(path, root))
  const narrowed = policy.mode === 'workspace-write' && held(policy.workspace)
    ? { mode: 'read-only' as const, writableRoots: Object.freeze([] as string[]) }
    : { mode: policy.mode, writableRoots: Object.freeze(policy.writableRoots.filter((root) => !held(root))) }
  const inRoots = readOnly.filter((path) => narrowed.writableRoots.some((root) => isInside(root, path)))
  const readDenied = tests.length ? (real: string) => {
    for (const test of tests) {
      const by = test(real)
      if (by) return by
    }
    return undefined
  } : undefined
  return Object.freeze({
    ...policy,
    ...narrowed,
    readDeny: Object.freeze(readDeny),
    // Why the registered list (ctx.sandbox.protect's): one mechanism keeps both read-only — the same
    // binds and rules, the same guard on renamed ancestors, the same copy put back on every backend
    registeredPaths: Object.freeze([...new Set([...(policy.registeredPaths ?? []), ...inRoots])]),
    restrictionGaps: Object.freeze([...new Set([...(policy.restrictionGaps ?? []), ...gaps])]),
    ...(readDenied ? { readDenied } : {}),
    ...(execs.length ? { execRules: allOf(execs) } : {}),
  })
}

const NEED = /^(?:s[^\s\0]+|f[A-Za-z0-9])$/

/** Needs as the launcher takes them (landlock-run --exec-match: one argument of words a list). */
function validNeeds(needs: unknown): boolean {
  if (!needs || typeof needs !== 'object' || Array.isArray(needs)) return false
  return Object.entries(needs).every(([name, lists]) => /^[^\s\0]+$/.test(name) && Array.isArray(lists) &&
    lists.every((list) => Array.isArray(list) && list.every((item) => typeof item === 'string' && NEED.test(item))))
}

/** A program's needs across restrictions: only when each one that lists it says them (one that does not asks of every exec). */
function mergedNeeds(execs: readonly ExecRules[]): Record<string, (readonly string[])[]> {
  const out: Record<string, (readonly string[])[]> = {}
  const names = new Set(execs.flatMap((rules) => rules.programs ?? []))
  for (const name of names) {
    const listing = execs.filter((rules) => rules.programs?.includes(name))
    if (listing.every((rules) => rules.needs && Object.hasOwn(rules.needs, name))) out[name] = listing.flatMap((rules) => [...rules.needs![name]])
  }
  return out
}

/** Every restriction's exec test in turn: the first refusal stands. */
function allOf(execs: readonly ExecRules[]): ExecRules {
  if (execs.length === 1) return execs[0]
  const lists = execs.map((rules) => rules.programs)
  return {
    // Why absent when one is: that check may refuse any exec
    ...(lists.every((list) => list !== undefined) ? { programs: [...new Set(lists.flat() as string[])], needs: mergedNeeds(execs) } : {}),
    async check(request, call) {
      for (const rules of execs) {
        const verdict = await rules.check(request, call)
        if (!verdict.allow) return verdict
      }
      return { allow: true }
    },
  }
}
