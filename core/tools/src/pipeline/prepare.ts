/**
 * Step 1, prepare: audit first (`tool/call`), then refuse what must never reach
 * a policy — an aborted caller, arguments that are not lossless JSON, a name
 * the caller may not execute (the code-mode collapse), arguments that fail the
 * schema — and freeze what was accepted.
 */
import { describeError, freezeSnapshot, NotJsonError, snapshot, type JsonObject, type JsonValue } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { Execution, ToolResult } from '../types.js'
import type { CallState, PipelineEnv } from './state.js'

/** A copy of the arguments (what is logged and validated is what everyone sees), or why there is none. */
function materialize(raw: unknown): JsonObject | string {
  if (raw === undefined) return {}
  try {
    return snapshot<JsonObject>(raw)
  } catch (error) {
    return error instanceof NotJsonError ? error.message : `arguments cannot be read: ${describeError(error)}`
  }
}

export function prepare(env: PipelineEnv, state: CallState): ToolResult | undefined {
  const { callId, name, input } = state
  // the finalizer of the *visible* tool is captured before the arguments are touched, and the
  // executable entry is resolved now, with the gate set: a reload later in the call changes neither
  const visible = env.registry.get(name, input.scope)
  state.finalizer = visible?.def.finalizeContent
  const entry = env.registry.resolveExecution(name, state.nested, input.scope, visible)

  const materialized = materialize(input.arguments)
  const args = typeof materialized === 'string' ? undefined : materialized
  const logged: { callId: string; name: string; arguments?: JsonValue; unloggable?: string; parent?: string } = { callId, name }
  if (args) logged.arguments = args
  else logged.unloggable = materialized as string
  if (state.parent) logged.parent = state.parent.callId
  try {
    // written now, before anything can act on the call; frozen after the line is
    // built: serializing a frozen object takes V8's slow path
    state.session.write('tool/call', logged)
  } catch (error) {
    // an unaudited call never runs
    return errorResult(callId, name, 'DENIED', `the call could not be written to the session log: ${describeError(error)}`)
  } finally {
    if (args) freezeSnapshot(args)
  }

  if (state.callerSignal.aborted) return errorResult(callId, name, 'ABORTED_BEFORE_DISPATCH', `call ${callId} was aborted before dispatch`)
  if (input.parent !== undefined && !state.parent) {
    return errorResult(callId, name, 'DENIED', 'the parent token is not one the kernel issued')
  }
  if (!args) return errorResult(callId, name, 'INVALID_ARGS', `TypeError: ${materialized as string}`)
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return errorResult(callId, name, 'INVALID_ARGS', 'arguments must be a JSON object')
  }

  if (!entry) return errorResult(callId, name, 'UNKNOWN_TOOL', `unknown tool ${JSON.stringify(name)}`)
  state.entry = entry

  const problem = env.registry.checkOf(entry)(args)
  if (problem) return errorResult(callId, name, 'INVALID_ARGS', `${name}: ${problem}`)

  const exec: Execution = Object.freeze({
    callId,
    name,
    arguments: args,
    session: state.session,
    signal: state.callerSignal,
    scope: input.scope,
    parent: state.parent,
    nested: state.nested,
  })
  state.exec = exec
}
