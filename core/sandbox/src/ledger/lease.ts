/**
 * The ledger of protected entries held by calls in progress, shared by
 * every dsh process of this user (a directory under the OS temp dir, which
 * no confined command can see: bwrap gives it a private /tmp, Landlock
 * grants no rule there). The first call to take an entry records what it
 * was; a call that overlaps it inherits that record instead of what it sees
 * now, and the entry is put back only when the last of them ends. Without
 * it, call A creates `.git`, call B takes it for the user's, A's cleanup
 * removes it (and with it B's read-only bind), and what B then plants
 * outlives both calls. See docs/decisions/2026-12-01-protected-ledger.md.
 */
import { randomUUID } from 'node:crypto'
import { unlinkSync } from 'node:fs'
import { describeError, KernelError } from '@dsh/kernel'
import { identityOf, restoreEntry, kindOf, type ProtectedEntry } from '../protected/entries.js'
import { newBudget, snapshotEntry } from '../protected/restore.js'
import { clearAncestors } from '../protected/restore-ancestors.js'
import { ledgerDir, lockDir, markUnrestored, readState, stateFile, writeState, type Holder } from './store.js'
import { reclaimAbandoned, sweepOnce, sweptAll, type Reclaimed } from './reclaim.js'

export * from './store.js'
export * from './reclaim.js'

export interface Lease {
  /** what each entry was when the first call still in progress took it */
  readonly entries: readonly ProtectedEntry[]
  /** what was put back, before this lease, for calls whose dsh process died holding entries (reclaimAbandoned) */
  readonly reclaimed: readonly Reclaimed[]
  /** Give the entries back; the last holder of an entry restores it. Returns the paths changed. */
  release(): string[]
}

const NOTHING_HELD: Lease = Object.freeze({ entries: Object.freeze([]), reclaimed: Object.freeze([]), release: () => [] })

/**
 * Take the protected entries at `paths` for one call; those in `snapshot`
 * are recorded with their content, to be put back whole (restore.ts); the
 * directories among `identified` with their identity, so one put in their
 * place is removed (restoreEntry).
 */
export function leaseProtected(paths: readonly string[], writableRoots: readonly string[], snapshot: readonly string[] = [], identified: readonly string[] = []): Lease {
  // Why no lock at all: a call with nothing to take (read-only: no writable root, so no protected
  // path) has nothing to record or put back, once this process's whole-ledger put-back is through
  if (!paths.length && !snapshot.length && sweptAll()) return NOTHING_HELD
  const dir = ledgerDir(writableRoots)
  const me: Holder = { pid: process.pid, id: randomUUID() }
  const unlock = lockDir(dir)
  const entries: ProtectedEntry[] = []
  const reclaimed: Reclaimed[] = []
  const budget = newBudget()
  try {
    // Why every path, at first: a killed process's calls may have held entries no call here takes
    sweepOnce(dir, reclaimed)
    // Why two passes: a snapshot over its bound throws, and then no lease may have been written
    const taken = [...new Set([...paths, ...snapshot])].map((path) => {
      const file = stateFile(dir, path)
      const held = readState(file, path)
      // Why the recorded entry: what this call sees may be what an overlapping call created
      if (held?.holders.length) return { file, held, entry: held.entry }
      // Why before the fresh record replaces it: what a dead holder's command left is put back first
      const done = held && reclaimAbandoned(dir, file, held)
      if (done) reclaimed.push(done)
      const now = kindOf(path)
      const content = snapshot.includes(path) && now.kind !== 'absent' ? snapshotEntry(path, budget) : undefined
      const identity = now.kind === 'directory' && identified.includes(path) ? identityOf(path) : undefined
      return { file, held, entry: Object.freeze({ path, ...now, ...(content ? { content } : {}), ...(identity ? { identity } : {}) }) as ProtectedEntry }
    })
    for (const { file, held, entry } of taken) {
      writeState(file, { entry, holders: [...(held?.holders ?? []), me], roots: [...writableRoots] })
      entries.push(entry)
    }
  } finally {
    unlock()
  }
  let released = false
  return Object.freeze({
    entries: Object.freeze(entries),
    reclaimed: Object.freeze(reclaimed),
    release: () => {
      if (released) return []
      released = true
      return releaseEntries(dir, writableRoots, entries, me)
    },
  })
}

/**
 * Put one entry back; a failure is marked in the ledger (markUnrestored) and
 * returned, so the other entries are still put back.
 */
function putBack(dir: string, roots: readonly string[], entry: ProtectedEntry, changed: string[], failed: string[]): void {
  try {
    // Why first: the entry is put back by path, and a link left in an ancestor's place would lead it elsewhere
    const way = clearAncestors(entry.path, roots)
    changed.push(...way.removed.filter((p) => !changed.includes(p)))
    if (!way.intact) {
      // Why changed: what the call began with is no longer at its path (moved away with its parent)
      if (entry.kind !== 'absent') changed.push(entry.path)
      return
    }
    if (restoreEntry(entry)) changed.push(entry.path)
  } catch (error) {
    const reason = `putting back ${entry.path} after a confined call failed (${describeError(error)}), so it may hold what the command wrote`
    markUnrestored(dir, entry.path, reason)
    failed.push(reason)
  }
}

function releaseEntries(dir: string, roots: readonly string[], entries: readonly ProtectedEntry[], me: Holder): string[] {
  const changed: string[] = []
  const failed: string[] = []
  let unlock: (() => void) | undefined
  try {
    unlock = lockDir(dir)
  } catch {
    // Why restore anyway: a ledger we cannot lock must not leave a planted entry in place
    for (const entry of entries) putBack(dir, roots, entry, changed, failed)
  }
  if (unlock) {
    try {
      for (const entry of entries) {
        const file = stateFile(dir, entry.path)
        const held = readState(file, entry.path)
        const others = (held?.holders ?? []).filter((h) => h.id !== me.id)
        if (others.length) {
          writeState(file, { entry: held!.entry, holders: others, roots: held!.roots ?? [...roots] })
          continue
        }
        putBack(dir, roots, held?.entry ?? entry, changed, failed)
        try {
          unlinkSync(file)
        } catch {}
      }
    } finally {
      unlock()
    }
  }
  // Why throw: the call must not end as if its protected entries were as they were
  if (failed.length) throw new KernelError('SANDBOX_UNAVAILABLE', `the sandbox could not put back what the command changed: ${failed.join('; ')}${changed.length ? ` (put back: ${changed.join(', ')})` : ''}; each is marked and refused to readers until you have checked it and run \`dsh sandbox clear <path>\``, { details: { failed, changed } })
  return changed
}
