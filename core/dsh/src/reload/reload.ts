/**
 * `kernel.reload()`: transactional replacement of the plugin set and of the
 * service settings. Everything is validated before anything changes; the swap
 * runs under the tool barrier (calls that start meanwhile wait; calls already
 * running keep the gate set they started with).
 */
import type { Context, ForkScope } from 'cordis'
import { canonicalJson, KernelError } from '@dsh/kernel'
import { applyPreset } from '@dsh/approval'
import { inConfigFile, mergeOptions, readConfigFile, type ConfigFile } from '../config/file.js'
import { checkOptions, type KernelOptions } from '../kernel/options.js'
import type { PlanSummary, PluginSet } from '../plugins/plugin-set.js'
import { loadedPaths, type LoadedFiles } from '../kernel/protect-loaded.js'
import { checkServiceConfigs } from '../kernel/service-configs.js'

/** A core service whose config can change on reload: re-plugged when it does. */
export interface ServiceSlot {
  name: string
  configOf(options: KernelOptions): unknown
  plug(config: unknown): ForkScope
  fork: ForkScope
  key: string
}

export interface KernelState {
  ctx: Context
  plugins: PluginSet
  explicit: KernelOptions
  configFile?: string
  slots: ServiceSlot[]
  options: KernelOptions
  /** the registration of what the kernel loads with the sandbox (protect-loaded.ts) */
  loaded: LoadedFiles
}

function resolveOptions(state: KernelState, config: KernelOptions | undefined): { options: KernelOptions; baseDir: string; file?: ConfigFile } {
  if (config !== undefined) return { options: applyPreset(checkOptions(config, 'reload config')), baseDir: process.cwd() }
  if (!state.configFile) throw new KernelError('INVALID_CONFIG', 'reload() without a config needs the kernel to have been created with configFile')
  const file = readConfigFile(state.configFile)
  return { options: applyPreset(mergeOptions(file.options, state.explicit)), baseDir: file.dir, file }
}

export async function reloadKernel(state: KernelState, config?: KernelOptions): Promise<PlanSummary> {
  const { options, baseDir, file } = resolveOptions(state, config)
  if (options.dataDir !== undefined && state.options.dataDir !== undefined && options.dataDir !== state.options.dataDir) {
    throw new KernelError('INVALID_CONFIG', `dataDir cannot change on reload (${state.options.dataDir} → ${options.dataDir})`)
  }
  if ((options.dataDirReadable === true) !== (state.options.dataDirReadable === true)) {
    throw new KernelError('INVALID_CONFIG', `dataDirReadable cannot change on reload (${state.options.dataDirReadable === true} → ${options.dataDirReadable === true}); restart dsh`)
  }
  checkServiceConfigs(options, file)
  // every plugin imported and every config validated before anything changes
  let prepared: Awaited<ReturnType<typeof state.plugins.prepare>>
  try {
    prepared = await state.plugins.prepare(options.plugins ?? {}, baseDir)
  } catch (error) {
    throw inConfigFile(file, error)
  }
  const tools = state.ctx.tools
  return tools.exclusive(async () => {
    const previousMode = tools.mode
    const previous = state.slots.map((slot) => ({ slot, config: slot.configOf(state.options), key: slot.key }))
    try {
      const mode = options.tools?.mode ?? 'native'
      if (mode !== tools.mode) tools.setMode(mode)
      for (const slot of state.slots) {
        const next = slot.configOf(options)
        const key = canonicalJson(next)
        if (key === slot.key) continue
        slot.fork.dispose()
        slot.fork = slot.plug(next)
        slot.key = key
      }
      await state.ctx.lifecycle.flush()
      const summary = await state.plugins.apply(prepared)
      state.options = options
      // the code now loaded is what stays protected (a plugin removed: its files are the user's again)
      state.loaded.update(loadedPaths(state.configFile, state.plugins))
      return summary
    } catch (error) {
      // nothing changes on a failed reload: the mode and every re-plugged service go back too
      // (the plugin set has already put its old plugins back)
      if (tools.mode !== previousMode) tools.setMode(previousMode)
      for (const { slot, config, key } of previous) {
        if (slot.key === key) continue
        slot.fork.dispose()
        slot.fork = slot.plug(config)
        slot.key = key
      }
      await state.ctx.lifecycle.flush().catch(() => {})
      throw error
    }
  })
}
