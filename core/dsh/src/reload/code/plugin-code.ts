/**
 * The code of a plugin loaded from a path: where it lives, its stamp when it
 * was imported, and whether it changed since — `kernel.reload()` imports a
 * changed one afresh (hooks.ts), and `dsh mcp --watch` watches its
 * directories. Plugins named by package are never re-imported.
 */
import { isAbsolute, resolve } from 'node:path'
import { codeTree, type CodeTree } from './code-tree.js'
import { CodeScan } from './scan.js'
import { restamp, type CodeStamp } from './stamp.js'

// the key of a first stamp (no earlier one to compare with)
const NEW = Symbol('new')

export interface PluginCode {
  entry: string
  baseDir: string
  tree: CodeTree
  stamp: CodeStamp
}

/** For a path spec: its code as it is now (taken before the import, so a later change is never missed). */
export function pluginCode(spec: string, baseDir: string, scan = new CodeScan()): PluginCode | undefined {
  if (!spec.startsWith('.') && !isAbsolute(spec)) return undefined
  const entry = resolve(baseDir, spec)
  const tree = codeTree(entry, baseDir, scan)
  return { entry, baseDir, tree, stamp: scan.once(tree.files, () => restamp(tree.files, scan), NEW).stamp }
}

/**
 * The code now, when it differs from `code`; undefined when it did not change
 * (then `code` takes the fresh signatures, so a file no longer racy is not read again).
 */
export function changedCode(code: PluginCode, scan = new CodeScan()): PluginCode | undefined {
  const tree = codeTree(code.entry, code.baseDir, scan)
  const next = scan.once(tree.files, () => restamp(tree.files, scan, code.stamp), code.stamp)
  if (next.changed) return { ...code, tree, stamp: next.stamp }
  code.tree = tree
  code.stamp = next.stamp
  return undefined
}
