/**
 * Where a protected entry really leads. A protected symlink (`.codex ->
 * decoy/`) is written through at its target, and a `.git` file
 * (`gitdir: ../real.git`, as `git worktree` and submodules make) names the
 * directory whose hooks and config git runs: those targets are protected
 * too whenever they lie inside a writable root (outside every root they
 * are read-only anyway). Real paths; a target that does not exist yet is
 * given as the path it would have.
 */
import { closeSync, existsSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { isInside } from '../paths.js'

/** how much of a `.git` or `commondir` file is read: a pointer is one short line */
const POINTER_BYTES = 4096

/**
 * The real path of `path`, or of its deepest existing ancestor joined with the rest. `seen`:
 * what this resolution already found of an ancestor (its real path, or null when it is missing or
 * cannot be resolved), for a list of paths resolved together that share ancestors (`~/.ssh`,
 * `~/.aws`, … all under `~`): one look at each, as one pass over the list would have taken. Never
 * kept past that list: the next resolution looks again.
 */
export function realOrPlanned(path: string, seen?: Map<string, string | null>): string {
  const rest: string[] = []
  let at = resolve(path)
  for (;;) {
    const known = seen?.get(at)
    const real = known !== undefined ? known : realOrNull(at)
    seen?.set(at, real)
    if (real !== null) return rest.length ? join(real, ...rest.reverse()) : real
    const parent = dirname(at)
    if (parent === at) return resolve(path)
    rest.push(basename(at))
    at = parent
  }
}

function realOrNull(at: string): string | null {
  // Why existsSync first: it answers a missing path without an exception, realpath with one (most denied paths are missing)
  if (!existsSync(at)) return null
  try {
    return realpathSync.native(at)
  } catch {
    return null
  }
}

function readPointer(file: string): string | undefined {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const buf = Buffer.alloc(POINTER_BYTES)
    const n = readSync(fd, buf, 0, POINTER_BYTES, 0)
    return buf.subarray(0, n).toString('utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The directory a `.git` file points to (`gitdir: PATH`, relative to the file's directory). */
export function gitdirOf(gitFile: string): string | undefined {
  const text = readPointer(gitFile)
  const match = text && /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(text)
  if (!match) return undefined
  return realOrPlanned(isAbsolute(match[1]) ? match[1] : join(dirname(gitFile), match[1]))
}

/** A linked git directory's `commondir` (where a worktree's shared hooks and config live). */
function commondirOf(gitdir: string): string | undefined {
  const text = readPointer(join(gitdir, 'commondir'))?.split('\n')[0].trim()
  if (!text) return undefined
  return realOrPlanned(isAbsolute(text) ? text : join(gitdir, text))
}

/**
 * The targets of the protected entry at `path` that lie inside `roots`:
 * a symlink's target, a `.git` file's git directory and its common
 * directory. Empty for a plain file or directory, or an absent entry.
 */
export function linkedTargets(path: string, roots: readonly string[]): string[] {
  let st
  try {
    st = lstatSync(path)
  } catch {
    return []
  }
  const found: string[] = []
  if (st.isSymbolicLink()) {
    let text: string
    try {
      text = readlinkSync(path)
    } catch {
      return []
    }
    found.push(realOrPlanned(isAbsolute(text) ? text : join(dirname(path), text)))
  } else if (st.isFile() && basename(path) === '.git') {
    const gitdir = gitdirOf(path)
    if (gitdir) {
      found.push(gitdir)
      const common = commondirOf(gitdir)
      if (common) found.push(common)
    }
  }
  // Why only inside the roots: everything outside them is read-only on every backend already
  return [...new Set(found)].filter((target) => target !== path && roots.some((root) => isInside(root, target)))
}
