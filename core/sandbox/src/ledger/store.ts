/**
 * The ledger's records on disk: one small JSON file per protected path in a
 * directory private to this user under the OS temp dir, changed only under
 * a lock directory, and the marks left beside them for entries that were not
 * put back. What the records mean is in ledger.ts.
 */
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeError, KernelError, pidAlive } from '@dsh/kernel'
import { isInside } from '../paths.js'
import { kindOf, replacedDirectory, type ProtectedEntry } from '../protected/entries.js'
import { unchanged } from '../protected/restore.js'

const LOCK_WAIT_MS = 10_000
/** a lock directory without an owner file for this long was left by a process killed while taking it */
const OWNERLESS_STALE_MS = 2_000

export interface Holder {
  pid: number
  id: string
}

export interface State {
  entry: ProtectedEntry
  holders: Holder[]
  /** the writable roots of the lease that recorded it: where the way to the entry starts (restore-ancestors.ts) */
  roots?: string[]
}

const pause = new Int32Array(new SharedArrayBuffer(4))

/** Where the ledger directory of this user is (ledgerDir creates and checks it). */
export function ledgerPath(): string {
  return join(tmpdir(), `dsh-protected-${process.getuid?.() ?? 0}`)
}

/** A directory only `uid` may write (no group or other bits at all). */
export function isPrivateDir(st: { isDirectory(): boolean; uid: number | bigint; mode: number | bigint }, uid: number): boolean {
  return st.isDirectory() && Number(st.uid) === uid && (Number(st.mode) & 0o077) === 0
}

/** The ledger directory, created private; one another user could write is refused. */
export function ledgerDir(writableRoots: readonly string[] = []): string {
  const uid = process.getuid?.() ?? 0
  const dir = ledgerPath()
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = lstatSync(dir)
  // Why: whoever can write the ledger decides what a cleanup puts back
  if (!isPrivateDir(st, uid)) {
    throw new KernelError('SANDBOX_UNAVAILABLE', `the protected-path ledger ${dir} is not a private directory of uid ${uid}`)
  }
  // Why: a ledger the command can write would let it choose what is "restored"
  const root = writableRoots.find((r) => isInside(r, dir))
  if (root) throw new KernelError('SANDBOX_UNAVAILABLE', `the protected-path ledger ${dir} lies inside the writable root ${root}; set TMPDIR outside it`)
  return dir
}

/** Take the ledger's lock (waiting up to LOCK_WAIT_MS); returns the function that gives it back. */
export function lockDir(dir: string): () => void {
  const lock = join(dir, 'lock')
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 })
      writeFileSync(join(lock, 'owner'), String(process.pid))
      return () => unlock(lock)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (stale(lock)) rmSync(lock, { recursive: true, force: true })
    else if (Date.now() > deadline) throw new KernelError('SANDBOX_UNAVAILABLE', `the protected-path ledger ${dir} stayed locked for ${LOCK_WAIT_MS} ms`)
    else Atomics.wait(pause, 0, 0, 2)
  }
}

/**
 * Give the lock back: its owner file, then the directory, by name. Why not a recursive rmSync: node's
 * tries the directory first (ENOTEMPTY), then lists it; two calls a confinement, and right after a
 * sandboxed command's exit each of those waits on the kernel. Anything else found there is removed too.
 */
function unlock(lock: string): void {
  try {
    unlinkSync(join(lock, 'owner'))
    rmdirSync(lock)
  } catch {
    rmSync(lock, { recursive: true, force: true })
  }
}

function stale(lock: string): boolean {
  try {
    const owner = Number(readFileSync(join(lock, 'owner'), 'utf8'))
    return Number.isInteger(owner) && owner > 0 && !pidAlive(owner)
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > OWNERLESS_STALE_MS
    } catch {
      return false
    }
  }
}

export function stateFile(dir: string, path: string): string {
  return join(dir, `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.json`)
}

/** The record of `path`, its dead holders left out; undefined when there is none. */
export function readState(file: string, path: string): State | undefined {
  // Why: no record is the common case, answered without the exception a read would throw
  if (!existsSync(file)) return undefined
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as State
    if (state?.entry?.path !== path || !Array.isArray(state.holders)) return undefined
    const roots = Array.isArray(state.roots) && state.roots.every((r) => typeof r === 'string') ? { roots: state.roots } : {}
    return { entry: state.entry, holders: state.holders.filter((h) => Number.isInteger(h?.pid) && typeof h.id === 'string' && pidAlive(h.pid)), ...roots }
  } catch {
    return undefined
  }
}

export function writeState(file: string, state: State): void {
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 })
  renameSync(tmp, file)
}

/** Where the ledger says that `path` was not put back after a call (see markUnrestored). */
export function unrestoredFile(dir: string, path: string): string {
  return stateFile(dir, path).replace(/\.json$/, '.unrestored.json')
}

/**
 * Record that `path` may still hold what a confined command wrote: its
 * restore failed, or the process of the call holding it died first. Readers
 * of the entry (hooks-claude-code, through readProtected) refuse it until the
 * user, having checked it, removes the mark (`dsh sandbox clear <path>`,
 * ledger-marks.ts); the next call does not clear it.
 */
export function markUnrestored(dir: string, path: string, reason: string): void {
  try {
    writeFileSync(unrestoredFile(dir, path), JSON.stringify({ path, reason, at: new Date().toISOString() }), { mode: 0o600 })
  } catch {}
}

/** Why `path` is marked as not put back, if it is. */
export function unrestoredReason(dir: string, path: string): string | undefined {
  try {
    const record = JSON.parse(readFileSync(unrestoredFile(dir, path), 'utf8')) as { reason?: unknown }
    return typeof record?.reason === 'string' ? record.reason : 'the record does not say why'
  } catch (error) {
    // Why: a record that exists but cannot be read still says the entry was not put back
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : `its record cannot be read (${describeError(error)})`
  }
}

/** Whether `entry.path` differs from what a finished call would have put back (restoreEntry's test). */
export function differsFromRecord(entry: ProtectedEntry): boolean {
  if (entry.content) return !unchanged(entry.path, entry.content)
  if (replacedDirectory(entry)) return true
  const now = kindOf(entry.path)
  if (entry.kind === 'absent' || entry.kind === 'directory') return now.kind !== entry.kind
  if (entry.kind === 'symlink') return now.kind !== 'symlink' || now.target !== entry.target
  return false
}
