import type { Context } from 'cordis'
import type { Session, SessionOptions } from '@dsh/kernel'
import type { ExecuteInput, ToolResult } from '@dsh/tools'
import type {} from '@dsh/approval'
import type {} from '@dsh/system-prompt'

/** What a reload changed, by plugin. */
export interface ReloadSummary {
  added: string[]
  removed: string[]
  changed: string[]
}

/** What the server needs of a kernel: a `Kernel` from dsh's `createKernel()` is one. */
export interface McpKernel {
  /** the root context: its `tools`, `sessions`, `systemPrompt` and `approval` services */
  readonly ctx: Context
  /** a call through the full pipeline */
  execute(input: ExecuteInput): Promise<ToolResult>
  openSession(options?: SessionOptions): Session
  /** re-read the config and apply it */
  reload(): Promise<ReloadSummary>
}
