/** Snapshot and restore of protected entries, bounded or refused, since Landlock alone cannot keep them read-only during the call (docs/decisions/2026-12-01-landlock-restore.md). */
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { declareDurable, KernelError } from '@dsh/kernel'

declare module '@dsh/kernel' {
  interface SessionEvents {
    /** protected entries a confined call changed and the sandbox put back (or removed) when it ended */
    'sandbox/restored': { callId: string; paths: string[] }
  }
}

// a record of what a command changed in protected entries must survive a crash right after the call
declareDurable('sandbox/restored')

/** File bytes one call may snapshot, over all its entries. */
export const SNAPSHOT_MAX_BYTES = 4 * 1024 * 1024
/** Files, directories and links one call may snapshot. */
export const SNAPSHOT_MAX_ENTRIES = 4096

export type Snapshot =
  | { type: 'file'; mode: number; data: string }
  | { type: 'dir'; mode: number; entries: Record<string, Snapshot> }
  | { type: 'symlink'; target: string }

export interface SnapshotBudget {
  bytes: number
  entries: number
}

export function newBudget(): SnapshotBudget {
  return { bytes: SNAPSHOT_MAX_BYTES, entries: SNAPSHOT_MAX_ENTRIES }
}

class OverBudget extends Error {}

/** `keep` false: only charged to the budget, file bytes left unread (describe()'s check of the bound). */
function take(path: string, budget: SnapshotBudget, keep = true): Snapshot | undefined {
  if (--budget.entries < 0) throw new OverBudget(path)
  let st
  try {
    st = lstatSync(path)
  } catch {
    return undefined
  }
  if (st.isSymbolicLink()) return { type: 'symlink', target: readlinkSync(path) }
  if (st.isDirectory()) {
    const entries: Record<string, Snapshot> = {}
    for (const name of readdirSync(path).sort()) {
      const child = take(join(path, name), budget, keep)
      if (child) entries[name] = child
    }
    return { type: 'dir', mode: st.mode & 0o7777, entries }
  }
  if (st.isFile()) {
    budget.bytes -= st.size
    if (budget.bytes < 0) throw new OverBudget(path)
    return { type: 'file', mode: st.mode & 0o7777, data: keep ? readFileSync(path).toString('base64') : '' }
  }
  return undefined // a socket or FIFO holds nothing to put back
}

/**
 * The snapshot of `path` (undefined when it does not exist), charged to
 * `budget`; throws SANDBOX_UNAVAILABLE when the call's budget is spent.
 */
export function snapshotEntry(path: string, budget: SnapshotBudget): Snapshot | undefined {
  return charged(path, budget, true)
}

/**
 * Throw SANDBOX_UNAVAILABLE, as a call's snapshot of `paths` would, when
 * they hold more than one call may copy; nothing is read but their sizes.
 */
export function checkSnapshotBound(paths: readonly string[]): void {
  const budget = newBudget()
  for (const path of new Set(paths)) charged(path, budget, false)
}

function charged(path: string, budget: SnapshotBudget, keep: boolean): Snapshot | undefined {
  try {
    return take(path, budget, keep)
  } catch (error) {
    if (!(error instanceof OverBudget)) throw error
    throw new KernelError('SANDBOX_UNAVAILABLE', `the protected entries this backend must put back after the call hold more than ${SNAPSHOT_MAX_ENTRIES} entries or ${SNAPSHOT_MAX_BYTES} bytes (reached at ${error.message}); it cannot keep them read-only, so nothing runs — use the bwrap backend, or remove what is large from ${path}`, { details: { path, bound: 'snapshot' } })
  }
}

/** Whether `path` now holds exactly what `snapshot` recorded. */
export function unchanged(path: string, snapshot: Snapshot): boolean {
  try {
    const now = take(path, { bytes: SNAPSHOT_MAX_BYTES * 2, entries: SNAPSHOT_MAX_ENTRIES * 2 })
    return JSON.stringify(now) === JSON.stringify(snapshot)
  } catch {
    return false // grown past twice the bound: certainly changed
  }
}

function write(path: string, snapshot: Snapshot): void {
  if (snapshot.type === 'symlink') return symlinkSync(snapshot.target, path)
  if (snapshot.type === 'file') {
    // Why 'wx': O_EXCL never follows a symlink planted at the last component
    writeFileSync(path, Buffer.from(snapshot.data, 'base64'), { mode: snapshot.mode, flag: 'wx' })
    return
  }
  mkdirSync(path, { mode: snapshot.mode })
  for (const [name, child] of Object.entries(snapshot.entries)) write(join(path, name), child)
}

/**
 * Put `snapshot` back at `path` if it changed; true when it did. The parent
 * must still be the real directory it was (a command may have swapped an
 * ancestor for a symlink to somewhere outside): otherwise nothing is
 * written and the entry is reported as changed, removed if it can be.
 */
export function restoreSnapshot(path: string, snapshot: Snapshot): boolean {
  if (unchanged(path, snapshot)) return false
  let parentReal: string | undefined
  try {
    parentReal = realpathSync(dirname(path))
  } catch {}
  if (parentReal !== dirname(path)) return true
  rmSync(path, { recursive: true, force: true })
  write(join(parentReal, basename(path)), snapshot)
  return true
}
