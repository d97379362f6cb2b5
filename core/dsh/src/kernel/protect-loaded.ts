/**
 * What the kernel loads is protected from the commands it confines: the
 * config file in use (as `--config` or discovery named it, and its real
 * path), and for each plugin loaded by path its entry file and, when
 * code reload follows the plugin's own directory tree, that directory.
 * They are registered with the sandbox (`ctx.sandbox.protect`) by a plugin
 * of the kernel's own, so a reload that loads other files protects those
 * instead, and a sandbox service re-plugged on reload gets them again
 * (the plugin injects it). See docs/decisions/2026-12-02-protect-what-dsh-loads.md.
 */
import type { Context, ForkScope } from 'cordis'
import { resolve } from 'node:path'
import type {} from '@dsh/sandbox'
import type { PluginSet } from '../plugins/plugin-set.js'

export interface LoadedFilesConfig {
  paths: string[]
}

/**
 * The kernel's plugin that holds one registration (its name is what refusals name); a new object
 * each time, as cordis refuses the same plugin object plugged twice and the next list is plugged
 * before the previous one leaves.
 */
function loadedFiles() {
  return {
    name: 'dsh-loaded-files',
    inject: ['sandbox'],
    apply(ctx: Context, config: LoadedFilesConfig) {
      if (config.paths.length) ctx.sandbox.protect(config.paths)
    },
  }
}

/** The absolute paths dsh loads: the config file and the code of the plugins loaded by path. */
export function loadedPaths(configFile: string | undefined, plugins: PluginSet): string[] {
  return [...new Set([...(configFile ? [resolve(configFile)] : []), ...plugins.codePaths()])]
}

/**
 * Keeps the registration in step with what is loaded: `update` plugs the new
 * list before disposing the old one, so nothing is unprotected in between.
 */
export class LoadedFiles {
  private fork: ForkScope | undefined
  private key = ''

  constructor(private ctx: Context) {}

  update(paths: string[]): void {
    const key = JSON.stringify(paths)
    if (this.fork && key === this.key) return
    const previous = this.fork
    this.fork = this.ctx.plugin(loadedFiles(), { paths })
    this.key = key
    previous?.dispose()
  }
}
