/**
 * The pipeline, in order: prepare → pre-execute → guards → execute →
 * post-execute → finalize. `run` never rejects: every failure is an error
 * result, logged once.
 */
import { describeError, neverAborted, Session } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { ExecuteInput, ParentToken, ToolResult } from '../types.js'
import { execute } from './execute.js'
import { finalize } from './finalize.js'
import { runGuards } from './guards.js'
import { postExecute } from './post-execute.js'
import { preExecute } from './pre-execute.js'
import { prepare } from './prepare.js'
import type { CallState, PipelineEnv } from './state.js'

function label(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback
}

export async function runPipeline(env: PipelineEnv, input: ExecuteInput): Promise<ToolResult> {
  // a call never starts under a half-applied plugin set
  while (env.barrier) await env.barrier
  const callId = label(input?.callId, '<invalid callId>')
  const name = label(input?.name, '<invalid name>')
  const session = input?.session
  if (!(session instanceof Session)) {
    // without a session there is nowhere to audit the call: refuse it
    return errorResult(callId, name, 'DENIED', 'a tool call needs an open session to be audited')
  }
  const parent = input.parent !== undefined && env.tokens.has(input.parent as object) ? (input.parent as ParentToken) : undefined
  const state: CallState = {
    input,
    callId,
    name,
    session,
    callerSignal: input.signal instanceof AbortSignal ? input.signal : neverAborted,
    nested: parent !== undefined,
    parent,
    gates: {
      pre: env.lists.pre.current(),
      around: env.lists.around.current(),
      post: env.lists.post.current(),
      guards: env.registry.guards,
    },
  }
  let result: ToolResult | undefined
  try {
    // a step with nothing registered is skipped outright, and a step that answers at once is not
    // awaited: no promise, no turn of the microtask queue
    result = validIds(state.input) ? prepare(env, state) : await refuseIds(state)
    if (!result && state.gates.pre.length) result = await preExecute(env, state)
    if (!result && state.gates.guards.length) {
      const verdict = runGuards(env, state)
      result = verdict instanceof Promise ? await verdict : verdict
    }
    if (!result) {
      const ran = execute(env, state)
      result = ran instanceof Promise ? await ran : ran
      if (state.gates.post.length) result = await postExecute(env, state, result)
    }
  } catch (error) {
    // a bug in a step must still end as one logged error result
    result = errorResult(callId, name, 'TOOL_FAILED', `internal pipeline error: ${describeError(error)}`)
  }
  try {
    return finalize(env, state, result)
  } catch (error) {
    return errorResult(callId, name, 'TOOL_FAILED', `internal pipeline error while finalizing: ${describeError(error)}`)
  }
}

function validIds(input: ExecuteInput): boolean {
  return typeof input.callId === 'string' && typeof input.name === 'string'
}

async function refuseIds(state: CallState): Promise<ToolResult> {
  await state.session.append('tool/call', { callId: state.callId, name: state.name, unloggable: 'callId and name must be strings' }).catch(() => {})
  return errorResult(state.callId, state.name, 'INVALID_ARGS', 'callId and name must be strings')
}
