/** A file under a protected entry read as it will be once every call holding it ended, since a command may rewrite it meanwhile where the backend puts entries back (docs/decisions/2026-12-01-settings-under-restore.md). */
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs'
import { dirname, relative, sep } from 'node:path'
import { describeError, pidAlive } from '@dsh/kernel'
import { stampOf } from '../protected/dir-stamp.js'
import { isPrivateDir, ledgerDir, ledgerPath, lockDir, readState, reclaimAbandoned, stateFile, unrestoredFile, unrestoredReason, type State } from './lease.js'
import type { ProtectedEntry } from '../protected/entries.js'
import type { Snapshot } from '../protected/restore.js'

export type ProtectedRead =
  /** `disk`: no call in progress has a copy of it; `copy`: read from the copy a call in progress took. `text` undefined: no such file */
  | { from: 'disk' | 'copy'; text?: string }
  | { refused: string }

/** `path` and each directory above it. */
function upwards(path: string): string[] {
  const out = [path]
  for (let dir = dirname(path); dir !== out[out.length - 1]; dir = dirname(dir)) out.push(dir)
  return out
}

/** The text of `rel` inside a copied entry; undefined when it was not there. */
function fromCopy(entry: ProtectedEntry, rel: string, file: string): ProtectedRead {
  let node: Snapshot | undefined = entry.content
  for (const part of rel ? rel.split(sep) : []) {
    if (node?.type !== 'dir') return node ? { refused: `${file}: ${entry.path} held no directory there before the call` } : { from: 'copy' }
    node = node.entries[part]
  }
  if (!node) return { from: 'copy' }
  if (node.type !== 'file') return { refused: `${file} was a ${node.type === 'dir' ? 'directory' : 'symlink'}, not a regular file, before the call` }
  return { from: 'copy', text: Buffer.from(node.data, 'base64').toString('utf8') }
}

function fromDisk(file: string): ProtectedRead {
  try {
    // a FIFO or a device at the path would block or never end
    if (!statSync(file).isFile()) return { refused: `${file} is not a regular file` }
    return { from: 'disk', text: readFileSync(file, 'utf8') }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { from: 'disk' }
    return { refused: `${file} cannot be read: ${(error as Error).message}` }
  }
}

/** A read refused for a marked entry: why, and what the user does about it. */
function unrestoredRefusal(reason: string, path: string): string {
  return `${reason}; check ${path}, then run \`dsh sandbox clear ${path}\` (docs/errors.md, SANDBOX_UNAVAILABLE)`
}

/**
 * Read `file` (absolute, real) as it will be once the calls holding an entry
 * above it have ended. `writableRoots`: a ledger inside one is refused (a
 * command could forge its copies).
 */
export function readProtected(file: string, writableRoots: readonly string[] = []): ProtectedRead {
  let dir: string
  try {
    dir = ledgerDir(writableRoots)
  } catch (error) {
    return { refused: describeError(error) }
  }
  const unlock = lockDir(dir)
  try {
    const held: State[] = []
    for (const path of upwards(file)) {
      const reason = unrestoredReason(dir, path)
      if (reason) return { refused: unrestoredRefusal(reason, path) }
      const record = stateFile(dir, path)
      const state = readState(record, path)
      if (!state) continue
      if (state.holders.length) {
        held.push(state)
        continue
      }
      // a call whose process died holding it: put back first, then read
      reclaimAbandoned(dir, record, state)
      const abandoned = unrestoredReason(dir, path)
      if (abandoned) return { refused: unrestoredRefusal(abandoned, path) }
    }
    // Why any absent one first: what a command created under an entry absent at its start is removed after it
    if (held.some((state) => state.entry.kind === 'absent')) return { from: 'copy' }
    // held is deepest first: the nearest copy holds the file
    const copy = held.find((state) => state.entry.content)
    if (copy) return fromCopy(copy.entry, relative(copy.entry.path, file), file)
    return fromDisk(file)
  } finally {
    unlock()
  }
}

/** The stamps computed while the ledger directory was as `stamp` says, with the holders each one names. */
let kept: { stamp: string; files: Map<string, { stamp: string; pids: number[] }> } | undefined

/**
 * What the ledger says of the entries above `file` now, as a string that
 * changes when a call takes or gives one back, a holder dies or one is marked
 * as not put back (no lock: a change detector for callers that re-read on
 * change, asked on every tool call). Every record and mark is created,
 * replaced by a rename or removed in the ledger directory, so while the
 * directory's stamp is unchanged a stamp computed before stands, once its
 * holders are checked alive (dir-stamp.ts: a directory changed too recently
 * to be recognised is read afresh).
 */
export function protectedStamp(file: string): string {
  // Why not ledgerDir() first: creating and checking the directory costs more than the rest on every call
  const dir = ledgerPath()
  const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false })
  const checked = st !== undefined && isPrivateDir(st, process.getuid?.() ?? 0)
  // creates it, or throws saying why it is not private
  if (!checked) ledgerDir()
  const now = checked ? stampOf(st) : undefined
  if (now !== undefined && kept?.stamp === now) {
    const known = kept.files.get(file)
    if (known && known.pids.every(pidAlive)) return known.stamp
  } else {
    kept = now === undefined ? undefined : { stamp: now, files: new Map() }
  }
  const parts: string[] = []
  const pids: number[] = []
  for (const path of upwards(file)) {
    if (existsSync(unrestoredFile(dir, path))) parts.push(`u:${path}`)
    const state = readState(stateFile(dir, path), path)
    if (!state) continue
    parts.push(`${state.holders.length ? 'h' : 's'}${state.holders.map((h) => h.id).join(',')}:${path}`)
    for (const holder of state.holders) pids.push(holder.pid)
  }
  const stamp = parts.join('|')
  kept?.files.set(file, { stamp, pids })
  return stamp
}
