/**
 * What a plugin loaded from a path is made of, for telling whether its code
 * changed: the script files in its entry's directory tree (skipping
 * node_modules and dot directories) — or the entry alone when that directory
 * holds the config file (the project's, not the plugin's own) or the tree is
 * too big to be the plugin's own; and a hash of their contents.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

const SCRIPT = /\.(?:[cm]?[jt]sx?|json)$/
const MAX_FILES = 500
const MAX_DIRS = 100

export interface CodeTree {
  files: string[]
  /** the directories holding them, to watch */
  dirs: string[]
}

/** `baseDir`: the config file's directory. */
export function codeTree(entry: string, baseDir: string): CodeTree {
  const root = dirname(entry)
  // Why: beside (or above) the config the tree is the project, which the agent's tools change all the time
  if (!relative(root, baseDir).startsWith('..')) return { files: [entry], dirs: [root] }
  const files: string[] = []
  const dirs: string[] = []
  const todo = [root]
  while (todo.length) {
    const dir = todo.shift()!
    dirs.push(dir)
    if (dirs.length > MAX_DIRS) return { files: [entry], dirs: [root] }
    let entries: import('node:fs').Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const item of entries) {
      if (item.name.startsWith('.') || item.name === 'node_modules') continue
      const path = join(dir, item.name)
      if (item.isDirectory()) todo.push(path)
      else if (item.isFile() && SCRIPT.test(item.name)) files.push(path)
      if (files.length > MAX_FILES) return { files: [entry], dirs: [root] }
    }
  }
  if (!files.includes(entry)) files.push(entry)
  return { files: files.sort(), dirs }
}

/** One hash over the files' paths and contents (a missing file counts as such). */
export function codeStamp(files: readonly string[]): string {
  const hash = createHash('sha256')
  for (const file of files) {
    hash.update(file).update('\0')
    try {
      hash.update(readFileSync(file))
    } catch {
      hash.update('\0missing')
    }
    hash.update('\0')
  }
  return hash.digest('hex')
}
