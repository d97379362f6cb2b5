/**
 * The `run_code` transport: runs a program in the code runtime and dispatches
 * each `tools.<name>(args)` through the FULL pipeline (listeners, approval,
 * guards) with an unforgeable parent token and the id `<parent>:code:<n>`.
 */
import { describeError, fuseSignals, KernelError, type FusedSignal, type JsonValue } from '@dsh/kernel'
import type { CodeLimits, CodeRuntime, RunOutcome, SubCallOutcome } from '@dsh/code-runtime'
import { ToolScheduler } from '../scheduler.js'
import type { ToolService } from '../service.js'
import type { ToolCall, ToolDefinition, ToolResult } from '../types.js'
import { resultText } from '../results.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    'tool/code-dispatch-start': { callId: string; parent: string; name: string }
    'tool/code-dispatch': { callId: string; parent: string; name: string; isError: boolean; code?: string }
  }
}

export const RUN_CODE_DESCRIPTION = 'Run a TypeScript program that calls tools through the `tools` SDK declared below. The program is the body of an async function: top-level await and return work; return a JSON value. console.log output is returned after the value.'

function toOutcome(result: ToolResult): SubCallOutcome {
  if (result.isError) return { ok: false, code: result.error?.code ?? 'TOOL_FAILED', message: result.error?.message ?? resultText(result) }
  return { ok: true, value: result.value !== undefined ? result.value : resultText(result) }
}

function failure(outcome: Extract<RunOutcome, { ok: false }>): Error {
  const where = outcome.line ? ` (line ${outcome.line})` : ''
  const logs = outcome.logs ? `\n${outcome.logs}` : ''
  const message = `${outcome.code === 'SYNTAX' ? 'SyntaxError' : outcome.code}${where}: ${outcome.message}${logs}`
  // a program deadline is a timeout of the call, not a tool failure
  return outcome.code === 'TIMEOUT' ? new KernelError('TIMEOUT', `run_code: ${message}`) : new Error(message)
}

export function runCodeTool(tools: ToolService, runtime: () => CodeRuntime, limits: Partial<CodeLimits>): ToolDefinition {
  return {
    name: 'run_code',
    description: RUN_CODE_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'the TypeScript program' } },
      required: ['code'],
      additionalProperties: false,
    },
    async execute(args: { code: string }, call: ToolCall) {
      const parent = tools.issueParentToken(call.callId)
      const scheduler = new ToolScheduler()
      const scope = call.exec.scope
      const names = tools.schemas(scope).map((s) => s.name)
      // every sub-call of the run hears both the caller's abort and the run's end: fused once
      let fused: FusedSignal | undefined
      let fusedWith: AbortSignal | undefined
      const subCallSignal = (runSignal: AbortSignal): AbortSignal => {
        if (fusedWith !== runSignal || !fused) {
          fused?.release()
          fused = fuseSignals(call.signal, runSignal)
          fusedWith = runSignal
        }
        return fused.signal
      }
      let started = 0
      let done = 0
      call.progress(() => `${done} sub-call${done === 1 ? '' : 's'} done${started > done ? `, ${started - done} running` : ''}`)
      let outcome: RunOutcome
      try {
        outcome = await runtime().run({
          code: args.code,
          tools: names,
          signal: call.signal,
          limits,
          call: async (name, subArgs, index, runSignal) => {
            const callId = `${call.callId}:code:${index}`
            started++
            try {
              // written with the sub-call's own tool/call, in order, by one write
              call.session.post('tool/code-dispatch-start', { callId, parent: call.callId, name })
              const signal = subCallSignal(runSignal)
              const result = await scheduler.run(tools.concurrency(name, subArgs, scope), () =>
                tools.execute({ callId, name, arguments: subArgs, session: call.session, signal, scope, parent }))
              const outcome = toOutcome(result)
              // logged right after the answer is on its way: the program does not wait for it, and
              // nothing else is logged in between (the sub-call's tool/result is already in)
              outcome.settled = () => call.session.post('tool/code-dispatch', { callId, parent: call.callId, name, isError: result.isError, code: result.error?.code })
              return outcome
            } catch (error) {
              return { ok: false, code: 'TOOL_FAILED', message: describeError(error) }
            } finally {
              done++
            }
          },
        })
        // sub-calls a program started but did not wait for still run to their end before run_code
        // reports: a started body is never abandoned, and its result is logged before the parent's
        await scheduler.idle()
      } finally {
        fused?.release()
      }
      if (!outcome.ok) throw failure(outcome)
      const text = JSON.stringify(outcome.value)
      return { value: outcome.value as JsonValue, content: outcome.logs ? [{ type: 'text', text }, { type: 'text', text: outcome.logs }] : text }
    },
  }
}
