/**
 * The files of a kernel's plugins loaded from paths, for `dsh mcp --watch`.
 */
import { dirname, isAbsolute, resolve } from 'node:path'
import type { Kernel } from '../../kernel/kernel.js'
import { codeTree } from './code-tree.js'
import { CodeScan } from './scan.js'

export function pluginCodeFiles(kernel: Kernel, configFile: string): string[] {
  const baseDir = dirname(configFile)
  const scan = new CodeScan()
  const paths = kernel.plugins().map((plugin) => plugin.spec).filter((spec) => spec.startsWith('.') || isAbsolute(spec))
  return [...new Set(paths.flatMap((spec) => codeTree(resolve(baseDir, spec), baseDir, scan).files))]
}
