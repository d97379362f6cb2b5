/** The bounded walk grep and glob share, through checked fds and the read policy, never following a link, since a link in the workspace must not be a way out (docs/architecture.md, workspace-tools). */
import { readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { ToolCall } from '@dsh/tools'
import { checkReadable, dataDirOf, holdsAllowed, type Area } from '../area.js'
import type { Config } from '../config.js'
import { PathRefused, viaFd } from '../paths.js'
import { DIRECTORY, withFd } from '../tools/files.js'
import { ancestorRules, isIgnored, readRules, type RuleSet } from './gitignore.js'

/** Directories of version-control systems: never searched (as Claude Code's Grep excludes them). */
const VCS_DIRS = new Set(['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'])
/** How long the walk runs before it lets the event loop serve others. */
const SLICE_MS = 8

export interface WalkLimits {
  signal: AbortSignal
  /** `performance.now()` after which the walk stops */
  deadline: number
  maxFiles: number
  /** real directories never entered (the kernel's data directory) */
  skip?: ReadonlySet<string>
}

export interface WalkStats {
  files: number
  /** entries the read policy refused */
  denied: number
  /** symbolic links met and not followed */
  links: number
  /** entries skipped because their names are not valid UTF-8 (no string path names them) */
  undecodable: number
  /** why the walk ended early, if it did */
  stopped?: 'deadline' | 'max-files'
}

export interface WalkedFile {
  /** the file's real path */
  real: string
}

/** The bounds of one grep or glob call; the kernel's data directory (its logs record every search) is not searched. */
export function searchLimits(call: ToolCall, config: Config): WalkLimits {
  const skip = new Set<string>()
  try {
    skip.add(realpathSync(dataDirOf(call)))
  } catch {}
  return { signal: call.signal, deadline: performance.now() + config.searchTimeoutMs, maxFiles: config.maxSearchFiles, skip }
}

interface Entry {
  name: string
  isSymbolicLink(): boolean
  isDirectory(): boolean
  isFile(): boolean
}

/** The entries of `dir` whose names are UTF-8, in name order, and how many others there were. */
function list(dir: string): { entries: Entry[]; undecodable: number } {
  // Why through the fd: the listing is of the directory that was checked, not of what the path names now
  // Why as bytes: a name that is not UTF-8 would come back with U+FFFD in it, a path that names nothing,
  // and the file would be missing from the results without a word
  const raw = withFd(dir, DIRECTORY, (fd) => readdirSync(viaFd(fd, dir), { withFileTypes: true, encoding: 'buffer' }))
  const entries: Entry[] = []
  let undecodable = 0
  for (const dirent of raw) {
    const bytes = dirent.name as unknown as Buffer
    const name = bytes.toString('utf8')
    if (!Buffer.from(name, 'utf8').equals(bytes)) {
      undecodable++
      continue
    }
    entries.push({ name, isSymbolicLink: () => dirent.isSymbolicLink(), isDirectory: () => dirent.isDirectory(), isFile: () => dirent.isFile() })
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { entries, undecodable }
}

function readable(area: Area, path: string, stats: WalkStats): boolean {
  try {
    checkReadable(area, path, path)
    return true
  } catch (error) {
    if (!(error instanceof PathRefused)) throw error
    stats.denied++
    return false
  }
}

/** Walk the files under `root` (a real, readable directory), calling `visit` for each. */
export async function walk(area: Area, root: string, limits: WalkLimits, visit: (file: WalkedFile) => void): Promise<WalkStats> {
  const stats: WalkStats = { files: 0, denied: 0, links: 0, undecodable: 0 }
  let slice = performance.now()
  const pause = async (): Promise<boolean> => {
    limits.signal.throwIfAborted()
    const now = performance.now()
    if (now >= limits.deadline) {
      stats.stopped = 'deadline'
      return true
    }
    if (now - slice >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      limits.signal.throwIfAborted()
      slice = performance.now()
    }
    return false
  }
  const descend = async (dir: string, rules: readonly RuleSet[]): Promise<boolean> => {
    const own = readRules(dir)
    const sets = own ? [...rules, own] : rules
    let entries: Entry[]
    try {
      const listed = list(dir)
      entries = listed.entries
      stats.undecodable += listed.undecodable
    } catch (error) {
      if (error instanceof PathRefused) {
        stats.denied++
        return false
      }
      // an unreadable directory (EACCES, vanished) is skipped, as ripgrep skips it
      return false
    }
    for (const entry of entries) {
      if (await pause()) return true
      const path = join(dir, entry.name)
      if (entry.isSymbolicLink()) {
        stats.links++
        continue
      }
      if (entry.isDirectory()) {
        if (VCS_DIRS.has(entry.name) || limits.skip?.has(path) || isIgnored(sets, path, true)) continue
        // Why descend into a denied directory that holds an allowed one: its files are each checked again below
        if (!readable(area, path, stats) && !holdsAllowed(area, path)) continue
        if (await descend(path, sets)) return true
      } else if (entry.isFile()) {
        if (isIgnored(sets, path, false) || !readable(area, path, stats)) continue
        if (stats.files >= limits.maxFiles) {
          stats.stopped = 'max-files'
          return true
        }
        stats.files++
        visit({ real: path })
      }
    }
    return false
  }
  await descend(root, ancestorRules(area.workspace, root))
  return stats
}
