/**
 * `dsh/testing`: a kernel on temporary directories (the data directory and the
 * sandbox workspace), a session in a turn, a call helper, an approval answerer
 * and a tool factory — for testing plugins against the real pipeline.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Session } from '@dsh/kernel'
import type { Context } from 'cordis'
import type { ApprovalRequestEvent } from '@dsh/approval'
import type { ApprovalOutcome, ExecuteInput, ToolDefinition, ToolResult } from '@dsh/tools'
import { createKernel, type Kernel } from './kernel/kernel.js'
import type { KernelOptions } from './kernel/options.js'

export interface TestKernel extends Kernel {
  /** a fresh temporary directory used as the data directory's parent and workspace */
  readonly dir: string
  /** a session opened in a turn */
  readonly session: Session
  /** call a tool through the full pipeline in the test session */
  call(name: string, args?: unknown, extra?: Partial<ExecuteInput>): Promise<ToolResult>
  /** dispose the kernel and remove the temporary directory */
  cleanup(): Promise<void>
}

let counter = 0

export async function createTestKernel(options: KernelOptions = {}): Promise<TestKernel> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-test-'))
  const kernel = await createKernel({ dataDir: join(dir, '.dsh'), ...options, sandbox: { workspace: dir, ...options.sandbox } })
  const session = kernel.openSession({ id: 'test' })
  session.beginTurn()
  return {
    ...kernel,
    dir,
    session,
    call(name, args = {}, extra = {}) {
      return kernel.execute({ callId: `call-${++counter}`, name, arguments: args, session, ...extra })
    },
    async cleanup() {
      await kernel.dispose()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Answer every approval request of the kernel with `answer` (an outcome, or a
 * function of the request) — a stand-in for the human. Returns the disposer.
 */
export function answerApprovals(
  kernel: Kernel,
  answer: ApprovalOutcome | ((request: ApprovalRequestEvent) => ApprovalOutcome | Promise<ApprovalOutcome>),
): () => void {
  const fork = kernel.ctx.plugin({
    name: 'test-approver',
    apply: (ctx: Context) => {
      ctx.on('approval/request', (request) => (typeof answer === 'function' ? answer(request) : answer))
    },
  })
  return () => fork.dispose()
}

/** A tool definition with an open object schema and the given body. */
export function testTool(name: string, execute: ToolDefinition['execute'] = () => 'ok', extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, description: `test tool ${name}`, parameters: { type: 'object' }, execute, ...extra }
}

export { loadPlugin } from './plugins/load-plugin.js'
