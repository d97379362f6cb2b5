/**
 * The code of a plugin loaded from a path: where it lives, its stamp when it
 * was imported, and whether it changed since — `kernel.reload()` imports a
 * changed one afresh (hooks.ts), and `dsh mcp --watch` watches its
 * directories. Plugins named by package are never re-imported.
 */
import { isAbsolute, resolve } from 'node:path'
import { codeStamp, codeTree, type CodeTree } from './stamp.js'

export interface PluginCode {
  entry: string
  baseDir: string
  tree: CodeTree
  stamp: string
}

/** For a path spec: its code as it is now (taken before the import, so a later change is never missed). */
export function pluginCode(spec: string, baseDir: string): PluginCode | undefined {
  if (!spec.startsWith('.') && !isAbsolute(spec)) return undefined
  const entry = resolve(baseDir, spec)
  const tree = codeTree(entry, baseDir)
  return { entry, baseDir, tree, stamp: codeStamp(tree.files) }
}

/** The code now, when it differs from `code`; undefined when it did not change. */
export function changedCode(code: PluginCode): PluginCode | undefined {
  const tree = codeTree(code.entry, code.baseDir)
  const stamp = codeStamp(tree.files)
  return stamp === code.stamp ? undefined : { ...code, tree, stamp }
}
