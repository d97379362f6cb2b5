/**
 * `aiSdkTools()`: the kernel's wire tool set (`wireSchemas()`) as an AI SDK
 * tool set. Each tool's `execute` runs the full pipeline through
 * `kernel.execute` with the SDK's tool call id and abort signal, so every call
 * is logged, gated, approved and confined as a call of any other host. Calls
 * the SDK makes together (one model step may ask for several) are scheduled
 * by the tools' concurrency class: `exclusive` ones run alone.
 */
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from 'ai'
import { ToolScheduler, type ToolService } from 'dsh'
import type { AiSdkToolsOptions, KernelHandle } from './kernel-handle.js'
import { toolOutput } from './output.js'

/** Build a tool set; the scheduler is shared by every set of one source. */
export function buildToolSet(kernel: KernelHandle, options: AiSdkToolsOptions, scheduler: ToolScheduler): ToolSet {
  const { session, scope } = options
  // read at each use: a reload may replace the service
  const tools = (): ToolService => kernel.ctx.tools
  // names come from plugins and the model: no prototype, so `constructor` or `toString` never resolve to Object's
  const set: ToolSet = Object.create(null)
  for (const schema of tools().wireSchemas(scope)) {
    const name = schema.name
    set[name] = dynamicTool({
      description: schema.description,
      inputSchema: jsonSchema(schema.parameters as JSONSchema7),
      async execute(input, { toolCallId, abortSignal }) {
        const kind = tools().concurrency(name, input, scope)
        const result = await scheduler.run(kind, () => kernel.execute({
          callId: toolCallId,
          name,
          arguments: input,
          session,
          ...(abortSignal ? { signal: abortSignal } : {}),
          ...(scope !== undefined ? { scope } : {}),
        }))
        return toolOutput(result)
      },
    })
  }
  return set
}

/** The AI SDK tool set of the kernel's wire tools now (read again after a reload: `followAiSdkTools`). */
export function aiSdkTools(kernel: KernelHandle, options: AiSdkToolsOptions): ToolSet {
  return buildToolSet(kernel, options, new ToolScheduler())
}
