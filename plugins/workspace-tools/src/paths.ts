/**
 * Opening files for the in-process tools without a race between the check
 * and the open. The path a model names is resolved to a real path and
 * checked against the policy; then the parent directory is opened, its fd's
 * real path (`/proc/self/fd/N`) re-checked, and the last component opened
 * relative to that fd with O_NOFOLLOW (through `/proc/self/fd/N/name`, which
 * is openat() for a runtime that has none). Whatever a concurrent process
 * swaps in between (a symlink for a directory, a link for the file) makes
 * the open fail or the re-check differ; it never redirects the write.
 */
import { closeSync, constants as O, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path'
// the path is the model's text, quoted in the refusal: cut (a path longer than PATH_MAX fails right here)
import { clipInput } from '@dsh/kernel'

// Why: without /proc (macOS) the checks fall back to realpath before and after the open (docs/threat-model.md)
const PROC_FD = (() => {
  try {
    return statSync('/proc/self/fd').isDirectory() ? '/proc/self/fd' : undefined
  } catch {
    return undefined
  }
})()

/** A refusal meant for the model: the message says what and why. */
export class PathRefused extends Error {
  override name = 'PathRefused'
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code
}

export interface Target {
  /** the real path the argument names (its last component may not exist yet) */
  real: string
  exists: boolean
  /** directories to create, outermost first (write only) */
  missing: string[]
}

/** Resolve a tool's path argument against the workspace, following symlinks that exist. */
export function resolveTarget(workspace: string, input: unknown, field: string): Target {
  if (typeof input !== 'string' || input === '') throw new PathRefused(`${field} must be a non-empty path`)
  if (input.includes('\0')) throw new PathRefused(`${field} must not contain NUL`)
  const abs = isAbsolute(input) ? resolve(input) : resolve(workspace, input)
  try {
    return { real: realpathSync(abs), exists: true, missing: [] }
  } catch (error) {
    if (errno(error) !== 'ENOENT' && errno(error) !== 'ENOTDIR') throw new PathRefused(`${clipInput(input)}: ${errno(error) ?? error}`)
  }
  let link: Stats | undefined
  try {
    link = lstatSync(abs)
  } catch {}
  // Why refuse: writing through a dangling link would create its target, wherever it points
  if (link?.isSymbolicLink()) throw new PathRefused(`${clipInput(input)} is a symbolic link to a path that does not exist`)
  const missing = [basename(abs)]
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    try {
      const real = realpathSync(dir)
      if (!statSync(real).isDirectory()) throw new PathRefused(`${dir} is not a directory`)
      const parts = missing.reverse()
      return { real: join(real, ...parts), exists: false, missing: parts.slice(0, -1).map((_, i) => join(real, ...parts.slice(0, i + 1))) }
    } catch (error) {
      if (error instanceof PathRefused) throw error
      if (dir === dirname(dir)) throw new PathRefused(`no existing directory above ${clipInput(input)}`)
      missing.push(basename(dir))
    }
  }
}

/** The real path an fd is open on; undefined without /proc. */
function fdPath(fd: number): string | undefined {
  return PROC_FD ? readlinkSync(`${PROC_FD}/${fd}`) : undefined
}

/** Open the directory `dir` (a real path) and check that the fd is really there. */
function openDirectory(dir: string): number {
  let fd: number
  try {
    fd = openSync(dir, O.O_RDONLY | O.O_DIRECTORY | O.O_NOFOLLOW)
  } catch (error) {
    if (errno(error) === 'ELOOP' || errno(error) === 'ENOTDIR') throw new PathRefused(`${dir} changed while it was being opened (it is no longer a directory)`)
    throw error
  }
  const actual = fdPath(fd)
  if (actual !== undefined && actual !== dir) {
    closeSync(fd)
    throw new PathRefused(`${dir} changed while it was being opened (now ${actual})`)
  }
  return fd
}

/**
 * Open `real` (a checked real path) with `flags`, never following a link in
 * its last component, and check the fd's real path. Returns the fd.
 */
export function openChecked(real: string, flags: number, mode = 0o644): number {
  const guard = O.O_NOFOLLOW | O.O_NONBLOCK | O.O_NOCTTY
  if (real === sep) return openSync(real, flags | guard)
  const dirFd = openDirectory(dirname(real))
  let fd: number
  try {
    fd = openSync(PROC_FD ? `${PROC_FD}/${dirFd}/${basename(real)}` : real, flags | guard, mode)
  } catch (error) {
    if (errno(error) === 'ELOOP') throw new PathRefused(`${real} became a symbolic link`)
    throw error
  } finally {
    closeSync(dirFd)
  }
  const actual = PROC_FD ? fdPath(fd) : realpathSync(real)
  if (actual !== real) {
    closeSync(fd)
    throw new PathRefused(`${real} changed while it was being opened (now ${actual})`)
  }
  return fd
}

/** Create one directory `real` inside its (checked) parent, without following links. */
export function mkdirChecked(real: string): void {
  const dirFd = openDirectory(dirname(real))
  try {
    mkdirSync(PROC_FD ? `${PROC_FD}/${dirFd}/${basename(real)}` : real, 0o755)
  } catch (error) {
    if (errno(error) !== 'EEXIST') throw error
  } finally {
    closeSync(dirFd)
  }
  const st = lstatSync(real)
  if (!st.isDirectory()) throw new PathRefused(`${real} is not a directory`)
}

/** A path that names what `fd` is open on (the fd itself where /proc exists). */
export function viaFd(fd: number, real: string): string {
  return PROC_FD ? `${PROC_FD}/${fd}` : real
}
