/**
 * One look at the disk for one reload: directory trees, stat signatures and
 * content hashes, each taken once however many plugins share them (twenty
 * plugins in one directory each count all twenty files as their tree). The
 * signature is size, mtime and ctime in milliseconds, inode and device; why
 * that suffices: decisions/2026-12-01-plugin-code-reload.md.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync, type Stats } from 'node:fs'

/**
 * What a stat says of a file: its signature — size, mtime and ctime (milliseconds with their
 * fraction), inode and device, kept as the numbers the stat gave (no text to build per file) —
 * and whether a write just after could have left it as it is.
 */
export interface FileLook {
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
  readonly dev: number
  readonly racy: boolean
}

/** A directory tree as one walk found it, and the looks of its directories taken before reading them. */
export interface Walked<T> {
  tree: T
  dirLooks: ReadonlyMap<string, FileLook>
}

// Why: well over the tick of a coarse kernel clock (4 ms at HZ=250, 10 ms at HZ=100) that stamps ctime
const RACY_MS = 100
// Why: a ctime of whole seconds may come from a filesystem that keeps 1 s or 2 s (FAT, ext3, HFS+)
const RACY_COARSE_MS = 3_000
const MISSING: FileLook = { size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1, dev: -1, racy: false }
const STAT = { throwIfNoEntry: false } as const

/** Whether two looks give the same signature. */
export function sameSignature(a: FileLook, b: FileLook): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev
}

const sameLook = (now: FileLook, then: FileLook) => !now.racy && sameSignature(now, then)

/**
 * size, mtime and ctime, inode and device; racy when the ctime is within one tick of `at` (or ahead of it).
 * `at` is a clock read before the stat (a scan's start): an earlier one only makes more looks racy.
 * Milliseconds (with their fraction) suffice: a later write stamps a ctime at least the racy window past a
 * settled one. Why not BigInt stats: decisions/2026-12-01-plugin-code-reload.md.
 */
function lookAt(file: string, at: number): FileLook {
  let stats: Stats | undefined
  try {
    stats = statSync(file, STAT)
  } catch {
    stats = undefined
  }
  if (!stats) return MISSING
  const { size, mtimeMs, ctimeMs, ino, dev } = stats
  const window = ctimeMs % 1000 === 0 ? RACY_COARSE_MS : RACY_MS
  return { size, mtimeMs, ctimeMs, ino, dev, racy: at - ctimeMs < window }
}

export class CodeScan {
  private memo = new Map<unknown, unknown>()
  /** the walks this scan used, kept for the next scan (`walks` of the one before) */
  readonly walks = new Map<string, Walked<unknown>>()
  private looks = new Map<string, FileLook>()
  // Why one clock read: taken before every stat of this scan, it can only make a look racy that a later read would not
  private readonly at = Date.now()
  private hashes = new Map<string, string>()
  /** how many files were read and hashed in this scan (what the stat signature saves) */
  hashed = 0
  /** how many directory trees this scan walked (what the earlier scan's walks save) */
  walked = 0

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

  constructor(private before: ReadonlyMap<string, Walked<unknown>> = new Map()) {}

  /**
   * The tree under `root`: the earlier scan's walk while none of its directories changed (an entry
   * added, removed or renamed moves a directory's mtime), else `walk()` afresh — which looks at each
   * directory (`look`) before it reads it.
   */
  walk<T>(root: string, walk: () => { tree: T | undefined; dirs: readonly string[] }): T | undefined {
    const known = this.walks.get(root)
    if (known) return known.tree as T
    const before = this.before.get(root)
    if (before && [...before.dirLooks].every(([dir, look]) => !look.racy && sameLook(this.look(dir), look))) {
      this.walks.set(root, before)
      return before.tree as T
    }
    this.walked++
    const { tree, dirs } = walk()
    // Why: a walk cut short saw only some directories, so their looks cannot vouch for the rest
    if (tree !== undefined) this.walks.set(root, { tree, dirLooks: new Map(dirs.map((dir) => [dir, this.look(dir)])) })
    return tree
  }

  /** A file's stat signature, taken once in this scan. */
  look(file: string): FileLook {
    let look = this.looks.get(file)
    if (!look) this.looks.set(file, (look = lookAt(file, this.at)))
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
