/**
 * What a plugin loaded from a path is made of, for telling whether its code
 * changed: the script files in its entry's directory tree (skipping
 * node_modules, dot directories and TypeScript declarations) — or the entry alone when that directory
 * holds the config file (the project's, not the plugin's own) or the tree is
 * too big to be the plugin's own.
 */
import { readdirSync, type Dirent } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { CodeScan } from './scan.js'

const SCRIPT = /\.(?:[cm]?[jt]sx?|json)$/
// Why not code: nothing runs a declaration, and a build writing them after the scripts would reload twice
const DECLARATION = /\.d\.[cm]?ts$/
const MAX_FILES = 500
const MAX_DIRS = 100

export interface CodeTree {
  readonly files: readonly string[]
  /** the directories holding them, to watch */
  readonly dirs: readonly string[]
  /** the plugin's own directory, when the tree is one (not the project beside the config, nor too big) */
  readonly own?: string
}

/** A walked tree, with its files as a set: twenty plugins of one directory each ask whether it holds their entry. */
interface WalkedTree extends CodeTree {
  readonly members: ReadonlySet<string>
}

/** `baseDir`: the config file's directory. `scan`: shared by the plugins of one reload. */
export function codeTree(entry: string, baseDir: string, scan = new CodeScan()): CodeTree {
  const root = dirname(entry)
  // Why: beside (or above) the config the tree is the project, which the agent's tools change all the time
  const project = scan.once(root, () => !relative(root, baseDir).startsWith('..'), baseDir)
  const walked = project ? undefined : scan.walk(root, () => walk(root, scan))
  if (!walked) return { files: [entry], dirs: [root] }
  return { files: walked.members.has(entry) ? walked.files : [...walked.files, entry].sort(), dirs: walked.dirs, own: root }
}

/** The script files under `root`, sorted, and the directories walked (each looked at before it is read); no tree when too big. */
function walk(root: string, scan: CodeScan): { tree: WalkedTree | undefined; dirs: string[] } {
  const files: string[] = []
  const dirs: string[] = []
  const todo = [root]
  while (todo.length) {
    const dir = todo.shift()!
    dirs.push(dir)
    if (dirs.length > MAX_DIRS) return { tree: undefined, dirs }
    scan.look(dir)
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const item of entries) {
      if (item.name.startsWith('.') || item.name === 'node_modules') continue
      const path = join(dir, item.name)
      if (item.isDirectory()) todo.push(path)
      else if (item.isFile() && SCRIPT.test(item.name) && !DECLARATION.test(item.name)) files.push(path)
      if (files.length > MAX_FILES) return { tree: undefined, dirs }
    }
  }
  return { tree: { files: files.sort(), dirs, members: new Set(files) }, dirs }
}
