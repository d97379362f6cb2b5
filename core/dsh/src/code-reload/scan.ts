/**
 * One look at the disk for one reload: directory trees, stat signatures and
 * content hashes, each taken once however many plugins share them (twenty
 * plugins in one directory each count all twenty files as their tree). The
 * signature is size, mtime and ctime in nanoseconds, inode and device; why
 * that suffices: decisions/2026-12-01-plugin-code-reload.md.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync, type BigIntStats } from 'node:fs'

/** What a stat says of a file: its signature, and whether a write just after could have left it as it is. */
export interface FileLook {
  signature: string
  racy: boolean
}

// Why: well over the tick of a coarse kernel clock (4 ms at HZ=250, 10 ms at HZ=100) that stamps ctime
const RACY_NS = 100_000_000n
// Why: a ctime of whole seconds may come from a filesystem that keeps 1 s or 2 s (FAT, ext3, HFS+)
const RACY_COARSE_NS = 3_000_000_000n
const SECOND_NS = 1_000_000_000n
const MISSING: FileLook = { signature: 'missing', racy: false }

/** size, mtime and ctime in ns, inode and device; racy when the ctime is within one tick of the stat (or ahead of it). */
function lookAt(file: string): FileLook {
  const at = BigInt(Date.now()) * 1_000_000n
  let stats: BigIntStats | undefined
  try {
    stats = statSync(file, { bigint: true, throwIfNoEntry: false })
  } catch {
    stats = undefined
  }
  if (!stats) return MISSING
  const window = stats.ctimeNs % SECOND_NS === 0n ? RACY_COARSE_NS : RACY_NS
  return { signature: `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}:${stats.dev}`, racy: at - stats.ctimeNs < window }
}

export class CodeScan {
  private memo = new Map<unknown, unknown>()
  private looks = new Map<string, FileLook>()
  private hashes = new Map<string, string>()
  /** how many files were read and hashed in this scan (what the stat signature saves) */
  hashed = 0

  /**
   * `compute()` once per key in this scan: a plugin directory's tree, and its stamp against one
   * earlier stamp — shared by the plugins in that directory, which share both.
   */
  once<T>(key: unknown, compute: () => T, second?: unknown): T {
    let memo = this.memo
    if (second !== undefined) {
      if (!memo.has(key)) memo.set(key, new Map())
      memo = memo.get(key) as Map<unknown, unknown>
      key = second
    }
    if (!memo.has(key)) memo.set(key, compute())
    return memo.get(key) as T
  }

  /** A file's stat signature, taken once in this scan. */
  look(file: string): FileLook {
    let look = this.looks.get(file)
    if (!look) this.looks.set(file, (look = lookAt(file)))
    return look
  }

  /** A SHA-256 of the file's contents (`missing` when it cannot be read). */
  hash(file: string): string {
    let hash = this.hashes.get(file)
    if (hash === undefined) {
      try {
        hash = createHash('sha256').update(readFileSync(file)).digest('hex')
      } catch {
        hash = 'missing'
      }
      this.hashed++
      this.hashes.set(file, hash)
    }
    return hash
  }
}
