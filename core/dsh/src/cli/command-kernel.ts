/**
 * What the commands that build a kernel share (inspect, exec, permissions):
 * finding the config (`--config`, else `./dsh.yml` when present, else the
 * built-in default set), saying on stderr which one, and building the kernel
 * from it.
 */
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { KernelError } from '@dsh/kernel'
import { createKernel, type Kernel } from '../kernel/kernel.js'
import { commandOptions, configNotice } from '../config/default-set.js'
import type { KernelOptions } from '../kernel/options.js'
import { importPlugin, type PluginModule } from '../plugins/import-plugin.js'
import { UsageError } from './flags.js'

/** `--config` if given (it must exist), else `./dsh.yml` if present, else none (the built-in default set). */
export function findConfig(flag: string | undefined, cwd = process.cwd()): string | undefined {
  if (flag !== undefined) {
    const path = resolve(cwd, flag)
    if (!existsSync(path)) throw new UsageError(`config file not found: ${path}`)
    return path
  }
  const local = resolve(cwd, 'dsh.yml')
  return existsSync(local) ? local : undefined
}

/** The kernel for a command, after saying on stderr which config it runs; a bad config or a plugin that cannot start is a UsageError. */
export async function commandKernel(command: string, configFile: string | undefined, options: KernelOptions = {}): Promise<Kernel> {
  process.stderr.write(`${configNotice(command, configFile)}\n`)
  try {
    return await createKernel({ ...commandOptions(configFile), ...options })
  } catch (error) {
    // the loader's messages name the file, the plugin and the path inside its config
    if (KernelError.is(error)) throw new UsageError(error.message)
    throw error
  }
}

/** `use` on the command's kernel, disposed once it is done, whether it returned or threw. */
export async function withKernel<T>(command: string, configFile: string | undefined, use: (kernel: Kernel) => Promise<T>): Promise<T> {
  const kernel = await commandKernel(command, configFile)
  try {
    return await use(kernel)
  } finally {
    await kernel.dispose()
  }
}

const here = dirname(fileURLToPath(import.meta.url))

/** A bundled plugin's module, resolved from the dsh package itself (not from the user's directory). */
export function bundledModule<T extends object>(name: string): Promise<T & PluginModule> {
  return importPlugin(name, here) as Promise<T & PluginModule>
}
