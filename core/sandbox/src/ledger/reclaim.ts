/**
 * What a confined call whose dsh process died (killed) left in the ledger:
 * its records name holders that are gone, and the entries may hold what its
 * command wrote. The next lease of such an entry, the next reader of it and
 * the first leases of every later process put the entry back as the record
 * says and remove the record. See docs/decisions/2026-12-01-ledger-reclaim.md.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, realpathSync, renameSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { declareDurable, describeError, type Session } from '@dsh/kernel'
import { differsFromRecord, ledgerDir, lockDir, markUnrestored, readState, stateFile, type State } from './store.js'
import { kindOf, restoreEntry } from '../protected/entries.js'
import { clearAncestors } from '../protected/restore-ancestors.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    /**
     * before this call, the sandbox put back a protected entry that a call whose dsh process died
     * had held (as that call's record said); what the entry held instead is at `displaced`
     */
    'sandbox/reclaimed': { callId: string; path: string; displaced?: string }
  }
}

// a record of what was moved out of a workspace must survive a crash right after it
declareDurable('sandbox/reclaimed')

/**
 * Record each put-back in the call's session. A record that cannot be
 * written changes nothing: the entries are already as their records said.
 */
export function recordReclaimed(call: { session: Session; callId: string }, reclaimed: readonly Reclaimed[]): void {
  for (const { path, displaced } of reclaimed) {
    try {
      call.session.write('sandbox/reclaimed', { callId: call.callId, path, ...(displaced ? { displaced } : {}) })
    } catch {}
  }
}

/** What was put back for a call whose dsh process died holding an entry. */
export interface Reclaimed {
  readonly path: string
  /** where what the entry held instead was moved (beside it), when it held anything */
  readonly displaced?: string
}

/** Move what `path` holds to a name beside it no program reads; undefined when nothing is there. Never through a swapped ancestor. */
function displace(path: string): string | undefined {
  // Why first: a parent swapped for a symlink would move (and later write) somewhere outside the workspace
  let real: string | undefined
  try {
    real = realpathSync.native(dirname(path))
  } catch {}
  if (real !== dirname(path)) throw new Error(`${dirname(path)} is no longer the directory it was (a symlink or a moved ancestor)`)
  if (kindOf(path).kind === 'absent') return undefined
  const aside = `${path}.dsh-displaced-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`
  renameSync(path, aside)
  return aside
}

/**
 * A record whose holders all died before putting the entry back (their dsh
 * process was killed): put the entry back as the record says — what it
 * holds instead is moved beside it (`NAME.dsh-displaced-TIME-ID`: kept for
 * the user, since the ledger cannot tell what the dead call's command wrote
 * from what the user did since, and inert: no program runs a hook or reads
 * settings from that name) — and remove the record. A put-back that fails
 * leaves an .unrestored.json mark (readers refuse the entry) and the record
 * (the next one tries again). Call under the ledger's lock.
 */
export function reclaimAbandoned(dir: string, file: string, state: State): Reclaimed | undefined {
  if (state.holders.length) return undefined
  const { entry } = state
  let reclaimed: Reclaimed | undefined
  try {
    // Why first: a link the dead call's command left in an ancestor's place would lead the put-back (and host programs) elsewhere
    if (state.roots) {
      const way = clearAncestors(entry.path, state.roots)
      if (!way.intact) {
        removeRecord(file)
        return way.removed.length ? Object.freeze({ path: way.removed[0] }) : undefined
      }
    }
    // Why: a workspace removed since holds nothing to put back, and nothing may be created in its place
    if (kindOf(dirname(entry.path)).kind === 'absent') throw new Gone()

    if (differsFromRecord(entry)) {
      const displaced = displace(entry.path)
      restoreEntry(entry)
      reclaimed = Object.freeze({ path: entry.path, ...(displaced ? { displaced } : {}) })
    }
  } catch (error) {
    if (error instanceof Gone) return void removeRecord(file)
    markUnrestored(dir, entry.path, `a confined call that held ${entry.path} ended without putting it back (its dsh process died), it has changed since the call began, and putting it back failed (${describeError(error)})`)
    return undefined
  }
  removeRecord(file)
  return reclaimed
}

class Gone extends Error {}

function removeRecord(file: string): void {
  try {
    unlinkSync(file)
  } catch {}
}

/** Records one lease looks at for dead holders at most: a ledger left full (thousands of killed test runs) is worked off over several leases, never holding the lock long. */
export const RECLAIM_PER_LEASE = 256

/**
 * Records of the ledger whose holders all died, each put back
 * (reclaimAbandoned), up to RECLAIM_PER_LEASE of them; `done` once every
 * record was looked at. Call under the ledger's lock.
 */
export function reclaimAll(dir: string, limit = RECLAIM_PER_LEASE): { reclaimed: Reclaimed[]; done: boolean } {
  const reclaimed: Reclaimed[] = []
  let names: string[]
  try {
    names = readdirSync(dir).filter((name) => RECORD_NAME.test(name))
  } catch {
    return { reclaimed, done: true }
  }
  let looked = 0
  for (const name of names) {
    const file = join(dir, name)
    let path: unknown
    try {
      path = (JSON.parse(readFileSync(file, 'utf8')) as State)?.entry?.path
    } catch {
      continue
    }
    // Why the name checked: a record is found by its path's hash, and one under another name is no record of that path
    if (typeof path !== 'string' || stateFile(dir, path) !== file) continue
    const state = readState(file, path)
    if (!state?.holders.length && ++looked > limit) return { reclaimed, done: false }
    const done = state && reclaimAbandoned(dir, file, state)
    if (done) reclaimed.push(done)
  }
  return { reclaimed, done: true }
}

const RECORD_NAME = /^[0-9a-f]{32}\.json$/
/** whether this process has put back what dead holders left anywhere in the ledger (at its first leases, until one gets through every record) */
let reclaimedAll = false

/**
 * Before a call is built: put back what dead holders left at `paths` (and,
 * at this process's first calls, anywhere in the ledger), so the backend
 * binds what the entries are once put back. leaseProtected does it again for
 * a holder that died in between. `sweep` false (the sandbox's describe()):
 * `paths` only — no whole-ledger sweep, and no lock when none of them has a
 * record — so what is described, and what a reader of the entries then loads
 * from disk, is the entry as put back, not what a killed call's command wrote.
 */
export function reclaimProtected(paths: readonly string[], writableRoots: readonly string[], sweep = true): Reclaimed[] {
  const reclaimed: Reclaimed[] = []
  // Why not even the directory: no path to look up (read-only) once the whole ledger was put back, as leaseProtected
  if ((reclaimedAll || !sweep) && !paths.length) return reclaimed
  const dir = ledgerDir(writableRoots)
  // Why look first, unlocked: most calls find no record of their paths, and then need no lock (a record made meanwhile is the lease's to see)
  if ((reclaimedAll || !sweep) && !paths.some((path) => existsSync(stateFile(dir, path)))) return reclaimed
  const unlock = lockDir(dir)
  try {
    if (sweep) sweepOnce(dir, reclaimed)
    for (const path of new Set(paths)) {
      const file = stateFile(dir, path)
      const held = readState(file, path)
      const done = held && reclaimAbandoned(dir, file, held)
      if (done) reclaimed.push(done)
    }
  } finally {
    unlock()
  }
  return reclaimed
}

/** Whether this process's whole-ledger put-back (sweepOnce) got through. */
export function sweptAll(): boolean {
  return reclaimedAll
}

/** The whole-ledger put-back of this process's first leases (reclaimAll), until one gets through. */
export function sweepOnce(dir: string, into: Reclaimed[]): void {
  if (reclaimedAll) return
  const swept = reclaimAll(dir)
  reclaimedAll = swept.done
  into.push(...swept.reclaimed)
}
