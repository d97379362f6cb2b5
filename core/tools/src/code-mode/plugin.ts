/**
 * Code mode: the `run_code` transport, the `tools:sdk` prompt section and,
 * under `code`, a `system-prompt/assemble` listener dropping the `tool:*`
 * guidance (the model cannot call those tools directly). The code runtime's
 * workers are started up front when the kernel is in `code` or `both` mode,
 * and lazily otherwise.
 */
import type { Context } from 'cordis'
import { CodeRuntime, type CodeLimits } from '@dsh/code-runtime'
import { raw } from '@dsh/kernel/internals'
import type {} from '@dsh/system-prompt'
import type { ToolService } from '../service.js'
import { runCodeTool } from './run-code.js'
import { generateSdk, SDK_PROMPT } from './sdk.js'

export interface CodeModeConfig {
  limits?: Partial<CodeLimits>
  /** worker threads for programs (default 2) */
  workers?: number
}

export const name = 'code-mode'
export const inject = ['tools', 'systemPrompt']

export function apply(ctx: Context, config: CodeModeConfig = {}) {
  const tools = ctx.tools as unknown as ToolService
  let runtime: CodeRuntime | undefined
  // 30 warm-up runs: 1,500 sub-calls answered by the runtime itself while it is idle, after which a
  // sub-call costs the host about half what it costs on a new runtime
  const getRuntime = () => (runtime ??= new CodeRuntime({ workers: config.workers, limits: config.limits, warmUpRuns: 30 }))
  if (tools.mode !== 'native') getRuntime()
  ctx.on('dispose', () => runtime?.dispose())

  // sub-calls use the raw service: none needs the caller's context, and each traced method
  // call through cordis's proxy costs a shadow context and two call proxies
  tools.registerTransport(runCodeTool(raw(tools), getRuntime, config.limits ?? {}))

  // regenerated only when the tool set changed: generateSdk keeps the text of each schemas() view
  ctx.systemPrompt.section({
    id: 'tools:sdk',
    order: 100,
    text: () => (tools.mode === 'native' ? '' : `${SDK_PROMPT}\n\n\`\`\`ts\n${generateSdk(tools.schemas())}\n\`\`\``),
  })

  ctx.on('system-prompt/assemble', async (sections, next) => {
    const assembled = await next()
    if (tools.mode !== 'code') return assembled
    return assembled.filter((section) => !section.id.startsWith('tool:'))
  })
}
