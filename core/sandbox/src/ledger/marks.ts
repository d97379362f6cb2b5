/**
 * The marks the ledger leaves on protected entries it could not put back
 * after a confined call (a write-back that failed; a call whose dsh process
 * died and whose entry could not be put back for it): readers of the entry
 * refuse it while its mark stands (ledger-read.ts). A mark is removed only by
 * the user, once they have looked at the entry — `dsh sandbox unrestored`
 * lists them, `dsh sandbox clear <path>` removes one (docs/errors.md).
 */
import { readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { ledgerDir, lockDir, unrestoredFile } from './lease.js'

/** One entry marked as not put back. */
export interface UnrestoredMark {
  /** the protected entry */
  readonly path: string
  /** why it was not put back */
  readonly reason: string
  /** when it was marked (ISO 8601), when the mark says */
  readonly at?: string
}

const MARK_NAME = /^[0-9a-f]{32}\.unrestored\.json$/

/** Every mark in this user's ledger, by path; a mark that cannot be read is listed with the reason it cannot. */
export function listUnrestored(): UnrestoredMark[] {
  const dir = ledgerDir()
  const out: UnrestoredMark[] = []
  for (const name of readdirSync(dir).filter((n) => MARK_NAME.test(n))) {
    try {
      const mark = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { path?: unknown; reason?: unknown; at?: unknown }
      if (typeof mark?.path !== 'string' || unrestoredFile(dir, mark.path) !== join(dir, name)) throw new Error('it names no entry it belongs to')
      out.push(Object.freeze({ path: mark.path, reason: typeof mark.reason === 'string' ? mark.reason : 'the mark does not say why', ...(typeof mark.at === 'string' ? { at: mark.at } : {}) }))
    } catch (error) {
      out.push(Object.freeze({ path: join(dir, name), reason: `this mark cannot be read (${(error as Error).message}); remove it by hand once its entry is checked` }))
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path))
}

/** The path a mark is kept under for `path` as a user writes it: absolute, its directory by real path (the entry itself is not followed: it may be a symlink). */
export function markedPathOf(path: string): string {
  const absolute = resolve(path)
  try {
    return join(realpathSync.native(dirname(absolute)), basename(absolute))
  } catch {
    return absolute
  }
}

/** Remove the mark on `path` (under the ledger's lock); false when it has none. */
export function clearUnrestored(path: string): boolean {
  const dir = ledgerDir()
  const file = unrestoredFile(dir, markedPathOf(path))
  const unlock = lockDir(dir)
  try {
    try {
      rmSync(file)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw error
    }
  } finally {
    unlock()
  }
}
