/**
 * `createKernel()`: a root cordis Context with the core services started and
 * the configured plugins loaded.
 */
import { Context } from 'cordis'
import { resolve } from 'node:path'
import { describeError, KernelError, raw, SessionService, type Session, type SessionOptions } from '@dsh/kernel'
import { SystemPromptService } from '@dsh/system-prompt'
import { ToolService, type ExecuteInput, type ToolResult } from '@dsh/tools'
import { ApprovalService, applyPreset, resolveApprovalConfig } from '@dsh/approval'
import { SandboxService } from '@dsh/sandbox'
import { checkOptions, type KernelOptions } from './options.js'
import { checkPluginConfig, checkStarted, importPlugin, type LoadedPlugin } from './plugins.js'

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
  dispose(): Promise<void>
}

export async function createKernel(input?: KernelOptions): Promise<Kernel> {
  // a preset fills approval.policy and sandbox.mode where they are not set explicitly
  const options = applyPreset(checkOptions(input))
  const approval = resolveApprovalConfig(options.approval)
  const ctx = new Context()
  ctx.plugin(SessionService, { dataDir: resolve(options.dataDir ?? '.dsh') })
  ctx.plugin(SystemPromptService)
  ctx.plugin(ToolService, { mode: options.tools?.mode ?? 'native' })
  ctx.plugin(SandboxService, options.sandbox ?? {})
  ctx.plugin(ApprovalService, approval)
  await ctx.start()

  const loaded: LoadedPlugin[] = []
  try {
    for (const [spec, config] of Object.entries(options.plugins ?? {})) {
      const plugin = await importPlugin(spec, process.cwd())
      const checked = checkPluginConfig(spec, plugin, config)
      const fork = ctx.plugin(plugin as any, checked)
      await ctx.lifecycle.flush()
      checkStarted(spec, plugin, fork)
      loaded.push({ spec, plugin, config: checked, fork })
    }
  } catch (error) {
    await ctx.stop().catch(() => {})
    throw KernelError.is(error) ? error : new KernelError('PLUGIN_FAILED', describeError(error), { cause: error })
  }

  const tools = raw(ctx.tools)
  const execute = tools.execute.bind(tools)
  let disposed = false
  return {
    ctx,
    options,
    execute,
    openSession: (sessionOptions) => ctx.sessions.open(sessionOptions),
    plugins: () => loaded,
    async dispose() {
      if (disposed) return
      disposed = true
      await ctx.stop()
    },
  }
}
