/**
 * Gate 4: the `tools/post-execute` waterfall over the result. A listener may
 * replace content or value, or block (`{ kind: 'block', feedback }` → a
 * `BLOCKED` error result). It can never turn an error into a success, and a
 * listener that throws or returns garbage blocks: a redacting filter that
 * fails must not leak what it guards.
 */
import { compose, describeError, Inflight } from '@dsh/kernel'
import { checkResult, errorResult } from '../results.js'
import type { BlockDecision, ErrorSource, Execution, PostExecuteInput, ToolResult } from '../types.js'
import { listenerOwner, listenerSource } from './sources.js'
import type { Call, PipelineEnv } from './state.js'

const passThrough = (input: PostExecuteInput) => input.result

/** The source of a block by the listener at `index` (with what it said of itself, if it blocked); built only on a block. */
function blockerOf(env: PipelineEnv, post: Call['gates']['post'], index: number, said?: BlockDecision): ErrorSource {
  return listenerSource('post-execute', listenerOwner(env.lists.post, post[index]), said?.source)
}

export async function postExecute(env: PipelineEnv, call: Call, exec: Execution, result: ToolResult): Promise<ToolResult> {
  const post = call.gates.post
  if (post.length === 0) return result
  const { callId, name } = call
  // monotone like gate 1: once any listener threw or blocked, no outer listener can take it back
  let withheld: string | undefined
  let withheldBy: ErrorSource | undefined
  // the listener whose outcome stands: an outer one handing the same object on did not make it
  let madeBy = 0
  let made: unknown = result
  const observe = (outcome: unknown, threw: boolean, index: number) => {
    if (!threw && outcome !== made) {
      made = outcome
      madeBy = index
    }
    if (withheld) return
    if (threw) {
      withheld = `a tools/post-execute listener failed, so the result is withheld: ${describeError(outcome)}`
      withheldBy = blockerOf(env, post, index)
    } else if ((outcome as BlockDecision | undefined)?.kind === 'block') {
      const feedback = (outcome as BlockDecision).feedback
      withheld = typeof feedback === 'string' && feedback ? feedback : 'blocked by a tools/post-execute listener'
      withheldBy = blockerOf(env, post, index, outcome as BlockDecision)
    }
  }
  const started = new Inflight()
  let output: ToolResult | BlockDecision
  try {
    output = await compose(post, Object.freeze({ exec, result: Object.freeze(result) }), passThrough, { observe, started })
  } catch (error) {
    observe(error, true, 0)
    output = result
  }
  // a listener that returned without waiting for next() does not outrun an inner block
  const running = started.settled()
  if (running) await running
  if (withheld) return errorResult(callId, name, 'BLOCKED', withheld, withheldBy)
  if (output === result) return result
  if (output && (output as unknown as BlockDecision).kind === 'block') {
    const feedback = (output as unknown as BlockDecision).feedback
    return errorResult(callId, name, 'BLOCKED', typeof feedback === 'string' && feedback ? feedback : 'blocked by a tools/post-execute listener', blockerOf(env, post, madeBy, output as unknown as BlockDecision))
  }
  let replaced: ToolResult
  try {
    replaced = checkResult(output)
  } catch (error) {
    return errorResult(callId, name, 'BLOCKED', `a tools/post-execute listener returned an invalid result (${describeError(error)}), so the result is withheld`, blockerOf(env, post, madeBy))
  }
  // identity and failure status are the pipeline's, not a listener's
  replaced.callId = callId
  replaced.name = name
  if (result.isError) {
    // still an error with the same code; a listener may reword the message (to redact it)
    replaced.isError = true
    const original = result.error ?? { code: 'TOOL_FAILED', message: 'the tool failed' }
    replaced.error = { code: original.code, message: typeof replaced.error?.message === 'string' ? replaced.error.message : original.message }
    // who decided the failure stays who it was: a rewording listener did not decide it
    if (original.source) replaced.error.source = original.source
  } else if (replaced.isError) {
    replaced.error = { code: 'BLOCKED', message: replaced.error?.message ?? 'marked as an error by a tools/post-execute listener', source: blockerOf(env, post, madeBy) }
  } else {
    delete replaced.error
  }
  return replaced
}
