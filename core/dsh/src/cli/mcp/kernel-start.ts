/**
 * The kernel's side of `dsh mcp`'s start: what `run.ts` imports once the kernel is to start (with a
 * start-up snapshot, after the first answers), so that those answers do not wait for these modules
 * and their dependencies (the sandbox, the plugin set, the default set) to be evaluated.
 */
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Kernel } from '../../kernel/kernel.js'
import { loadPlugin } from '../../plugins/load-plugin.js'
import { importPlugin } from '../../plugins/import-plugin.js'

export { commandOptions, configNotice } from '../../config/default-set.js'
export { createKernel } from '../../kernel/kernel.js'
export { lockSession } from '../../sessions/lock.js'

/** The bundled otel plugin on the kernel, with its defaults — unless the config loads it already. */
export async function plugOtel(kernel: Kernel): Promise<void> {
  if (kernel.plugins().some((p) => p.plugin?.name === 'otel')) return
  const plugin = await importPlugin('otel', dirname(fileURLToPath(import.meta.url)))
  await loadPlugin(kernel.ctx, plugin)
}
