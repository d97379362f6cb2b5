/**
 * `snapshot(ctx)`: the registry as plain JSON — tools, listeners, guards,
 * prompt sections, sandbox, approval, plugins — each with its owner.
 *
 * Read-only by construction: it reads cordis's hook table and registry and
 * calls only the services' reporting views (`entries`, `guards`,
 * `wireSchemas`, `owners`, `sections`, `status`, `presets`). It composes no
 * listener, probes no backend and caches nothing on the kernel.
 */
import type { Context } from 'cordis'
import { collectListeners } from './collect-listeners.js'
import { collectPlugins } from './collect-plugins.js'
import { collectApproval, collectPrompt, collectSandbox, service } from './collect-services.js'
import { collectGuards, collectTools, type ToolsView } from './collect-tools.js'
import type { RegistrySnapshot, SnapshotOptions } from './types.js'

export function snapshot(ctx: Context, options: SnapshotOptions = {}): RegistrySnapshot {
  const tools = service<ToolsView>(ctx, 'tools')
  const toolList = tools ? collectTools(tools) : []
  const guidance = new Map(toolList.filter((t) => t.hasPrompt).map((t) => [`tool:${t.name}`, t.owner]))
  return {
    mode: tools?.mode ?? null,
    tools: toolList,
    listeners: collectListeners(ctx),
    guards: tools ? collectGuards(tools) : [],
    prompt: collectPrompt(ctx, guidance),
    sandbox: collectSandbox(ctx),
    approval: collectApproval(ctx),
    plugins: collectPlugins(ctx, options),
  }
}
