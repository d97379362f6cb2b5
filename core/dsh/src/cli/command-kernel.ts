/**
 * What `dsh inspect` and `dsh exec` share: strict flag parsing whose mistakes
 * are usage errors (exit 2), finding the config (`--config`, else `./dsh.yml`
 * when present, else the built-in default set), saying on stderr which one,
 * and building the kernel from it.
 */
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { describeError, KernelError } from '@dsh/kernel'
import { createKernel, type Kernel } from '../kernel/kernel.js'
import { commandOptions, configNotice } from '../config/default-set.js'
import type { KernelOptions } from '../kernel/options.js'
import { importPlugin, type PluginModule } from '../plugins/import-plugin.js'

/** A mistake on the command line or in the config: the command prints it and exits 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>

export type FlagValues<O extends Options> = { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean }

/** `parseArgs`, strict; an unknown flag or a missing value is a UsageError naming it. */
export function parseFlags<O extends Options>(command: string, args: string[], options: O, allowPositionals: boolean): { values: FlagValues<O>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals })
    return { values: values as FlagValues<O>, positionals }
  } catch (error) {
    const message = describeError(error).replace(/\. To specify a positional argument.*$/s, '')
    throw new UsageError(`${message}\nRun \`dsh ${command} --help\` for the options.`)
  }
}

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

const here = dirname(fileURLToPath(import.meta.url))

/** A bundled plugin's module, resolved from the dsh package itself (not from the user's directory). */
export function bundledModule<T extends object>(name: string): Promise<T & PluginModule> {
  return importPlugin(name, here) as Promise<T & PluginModule>
}

/** Print a usage error the way every command does, and give its exit code. */
export function usageFailure(command: string, error: unknown): number {
  if (!(error instanceof UsageError)) throw error
  process.stderr.write(`dsh ${command}: ${error.message}\n`)
  return 2
}
