/**
 * `followAiSdkTools()`: a tool set that follows the kernel's `tools/change`.
 * `current()` returns the set for the kernel's wire tools now, rebuilt only
 * after the set changed; `onChange` hears of a change when the wire set
 * really differs from the one last handed out (compared by canonical JSON;
 * the tool service already coalesces the changes of one synchronous burst).
 * A host passes `current()` to each `generateText`/`streamText`; a call of a
 * tool removed meanwhile reaches the pipeline and ends `UNKNOWN_TOOL`.
 */
import type { ToolSet } from 'ai'
import { canonicalJson, ToolScheduler, type ToolService } from 'dsh'
import type { AiSdkToolsOptions, KernelHandle } from './kernel-handle.js'
import { buildToolSet } from './tool-set.js'

export interface FollowAiSdkToolsOptions extends AiSdkToolsOptions {
  /** called with the new set when the wire tool set changed; a throw is reported to `onError` */
  onChange?(tools: ToolSet): void
  /** where a throwing `onChange` is reported (default: the console) */
  onError?(error: unknown): void
}

export interface AiSdkToolSource {
  /** the tool set now */
  current(): ToolSet
  /** stop following (the tools handed out keep working: their calls go through the pipeline) */
  dispose(): void
}

export function followAiSdkTools(kernel: KernelHandle, options: FollowAiSdkToolsOptions): AiSdkToolSource {
  const scheduler = new ToolScheduler()
  const wireKey = () => canonicalJson((kernel.ctx.tools as ToolService).wireSchemas(options.scope))
  let cached: { key: string; set: ToolSet } | undefined
  let disposed = false

  const current = (): ToolSet => {
    const key = wireKey()
    if (cached?.key !== key) cached = { key, set: buildToolSet(kernel, options, scheduler) }
    return cached.set
  }

  const report = options.onError ?? ((error: unknown) => console.error('followAiSdkTools: onChange threw', error))
  // runs inside the kernel's emit: it must not throw, or later tools/change listeners are skipped
  const announce = () => {
    if (disposed || !options.onChange) return
    try {
      const before = cached?.key
      const set = current()
      if (cached!.key !== before) options.onChange(set)
    } catch (error) {
      report(error)
    }
  }

  const fork = kernel.ctx.plugin({
    name: 'dsh-ai-sdk-tools',
    apply(ctx) {
      ctx.on('tools/change', announce)
    },
  })
  current()

  return {
    current,
    dispose() {
      if (disposed) return
      disposed = true
      fork.dispose()
    },
  }
}
