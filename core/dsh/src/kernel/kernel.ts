/**
 * `createKernel()`: a root cordis Context with the core services started and
 * the configured plugins loaded.
 */
import { Context } from 'cordis'
import { resolve } from 'node:path'
import { canonicalJson, describeError, KernelError, SessionService, type Session, type SessionOptions } from '@dsh/kernel'
import { exposeAccessors, raw } from '@dsh/kernel/internals'
import { SystemPromptService } from '@dsh/system-prompt'
import { codeMode, ToolService, type ExecuteInput, type ToolResult } from '@dsh/tools'
import { ApprovalService, applyPreset, resolveApprovalConfig } from '@dsh/approval'
import { SandboxService } from '@dsh/sandbox'
import { hideDataDir } from './data-dir.js'
import { checkOptions, type KernelOptions } from './options.js'
import { inConfigFile, mergeOptions, readConfigFile } from '../config/file.js'
import { PluginSet, type PlanSummary } from '../plugins/plugin-set.js'
import type { LoadedPlugin } from '../plugins/import-plugin.js'
import { reloadKernel, type KernelState, type ServiceSlot } from '../reload/reload.js'
import { LoadedFiles, loadedPaths } from './protect-loaded.js'
import { checkServiceConfigs } from './service-configs.js'

export interface Kernel {
  /** the root context: services are `ctx.tools`, `ctx.sessions`, … */
  readonly ctx: Context
  readonly options: Readonly<KernelOptions>
  /**
   * `ctx.tools.execute` without cordis's context proxy in between: the same
   * pipeline, for hosts that make many calls (the MCP server, benchmarks).
   */
  execute(input: ExecuteInput): Promise<ToolResult>
  /** open (or reopen) a session under the kernel's data directory */
  openSession(options?: SessionOptions): Session
  /** the plugins loaded from `options.plugins`, in order */
  plugins(): readonly LoadedPlugin[]
  /**
   * Replace the plugin set (and service settings) transactionally: with no
   * argument, re-read `configFile`. Every config is validated first; on any
   * error nothing changes. Only changed plugins are replaced.
   */
  reload(config?: KernelOptions): Promise<PlanSummary>
  dispose(): Promise<void>
}

/** How `createKernel` starts, beyond what the options configure. */
export interface KernelStart {
  /**
   * Start probing the sandbox backend as soon as the services run, while the plugins load (for a
   * host that confines commands soon, such as `dsh mcp`). Every confinement still awaits the probe,
   * and is refused when it fails. Default false: the first confinement probes.
   */
  probeSandbox?: boolean
}

function slot(name: string, configOf: ServiceSlot['configOf'], plug: ServiceSlot['plug'], options: KernelOptions): ServiceSlot {
  const config = configOf(options)
  return { name, configOf, plug, fork: plug(config), key: canonicalJson(config) }
}

export async function createKernel(input?: KernelOptions, start: KernelStart = {}): Promise<Kernel> {
  const explicit = checkOptions(input)
  const file = explicit.configFile ? readConfigFile(explicit.configFile) : undefined
  const baseDir = file?.dir ?? process.cwd()
  // a preset fills approval.policy and sandbox.mode where they are not set explicitly
  const options = applyPreset(file ? mergeOptions(file.options, explicit) : explicit)
  // Why before plugging: a service that throws in cordis is logged, not thrown, and its dependants wait
  checkServiceConfigs(options, file)
  const ctx = new Context()
  // cordis's own accessors (ctx.emit, ctx.on, ctx.plugin, …) read without the Error its handler builds for each
  exposeAccessors(ctx)
  ctx.plugin(SessionService, { dataDir: resolve(options.dataDir ?? '.dsh') })
  ctx.plugin(SystemPromptService)
  ctx.plugin(ToolService, { mode: options.tools?.mode ?? 'native' })
  const slots: ServiceSlot[] = [
    slot('approval', (o) => resolveApprovalConfig(o.approval), (config) => ctx.plugin(ApprovalService, config as any), options),
    slot('sandbox', (o) => o.sandbox ?? {}, (config) => ctx.plugin(SandboxService, config as any), options),
    slot('code-mode', (o) => ({ limits: o.tools?.code ?? {} }), (config) => ctx.plugin(codeMode, config as any), options),
  ]
  await ctx.start()
  // before any plugin: no call may read the session logs unless the config says so
  if (options.dataDirReadable !== true) hideDataDir(ctx, resolve(options.dataDir ?? '.dsh'))
  // the probe's process runs while the plugins are imported and applied, instead of after a plugin asks
  if (start.probeSandbox) raw(ctx.sandbox).probeInBackground()

  const plugins = new PluginSet(ctx)
  // the loaded plugin list, read-only, for inspection: `ctx.get('dsh').plugins()` (tool-cordis)
  ctx.set('dsh', { plugins: () => plugins.list() })
  try {
    await plugins.apply(await plugins.prepare(options.plugins ?? {}, baseDir))
  } catch (error) {
    await ctx.stop().catch(() => {})
    const located = inConfigFile(file, error)
    throw KernelError.is(located) ? located : new KernelError('PLUGIN_FAILED', describeError(located), { cause: located })
  }

  // Why before any call can run: a confined command must not rewrite what the next start or reload loads
  const loaded = new LoadedFiles(ctx)
  loaded.update(loadedPaths(explicit.configFile, plugins))
  const state: KernelState = { ctx, plugins, explicit, configFile: explicit.configFile, slots, options, loaded }
  const tools = raw(ctx.tools)
  const execute = tools.execute.bind(tools)
  let disposed = false
  return {
    ctx,
    options,
    execute,
    openSession: (sessionOptions) => ctx.sessions.open(sessionOptions),
    plugins: () => plugins.list(),
    reload: (config) => reloadKernel(state, config),
    async dispose() {
      if (disposed) return
      disposed = true
      // Why before stopping: the plugins told of each ending (SessionEnd hooks) are still there, and may still append
      const sessions = raw(ctx.sessions)
      await Promise.all(sessions.list().map((session) => sessions.end(session, { reason: 'other' })))
      await ctx.stop()
    },
  }
}
