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

interface Materialized {
  args?: JsonObject
  problem?: string
}

function materialize(raw: unknown): Materialized {
  if (raw === undefined) return { args: {} }
  try {
    // a copy: what is logged and validated is what everyone sees (frozen once it is logged)
    return { args: snapshot<JsonObject>(raw) }
  } catch (error) {
    return { problem: error instanceof NotJsonError ? error.message : `arguments cannot be read: ${describeError(error)}` }
  }
}

export function prepare(env: PipelineEnv, state: CallState): ToolResult | undefined {
  const { callId, name, input } = state
  // the finalizer of the *visible* tool is captured before the arguments are touched, and the
  // executable entry is resolved now, with the gate set: a reload later in the call changes neither
  state.finalizer = env.registry.get(name, input.scope)?.def.finalizeContent
  const entry = env.registry.resolveExecution(name, state.nested, input.scope)

  const materialized = materialize(input.arguments)
  const logged: { callId: string; name: string; arguments?: JsonValue; unloggable?: string; parent?: string } = { callId, name }
  if (materialized.args) logged.arguments = materialized.args
  else logged.unloggable = materialized.problem
  if (state.parent) logged.parent = state.parent.callId
  try {
    // written now, before anything can act on the call; frozen after the line is
    // built: serializing a frozen object takes V8's slow path
    state.session.write('tool/call', logged)
  } catch (error) {
    // an unaudited call never runs
    return errorResult(callId, name, 'DENIED', `the call could not be written to the session log: ${describeError(error)}`)
  } finally {
    if (materialized.args) freezeSnapshot(materialized.args)
  }

  if (state.callerSignal.aborted) return errorResult(callId, name, 'ABORTED_BEFORE_DISPATCH', `call ${callId} was aborted before dispatch`)
  if (input.parent !== undefined && !state.parent) {
    return errorResult(callId, name, 'DENIED', 'the parent token is not one the kernel issued')
  }
  if (!materialized.args) return errorResult(callId, name, 'INVALID_ARGS', `TypeError: ${materialized.problem}`)
  if (materialized.args === null || typeof materialized.args !== 'object' || Array.isArray(materialized.args)) {
    return errorResult(callId, name, 'INVALID_ARGS', 'arguments must be a JSON object')
  }

  if (!entry) return errorResult(callId, name, 'UNKNOWN_TOOL', `unknown tool ${JSON.stringify(name)}`)
  state.entry = entry

  const problem = env.registry.checkOf(entry)(materialized.args)
  if (problem) return errorResult(callId, name, 'INVALID_ARGS', `${name}: ${problem}`)

  const exec: Execution = Object.freeze({
    callId,
    name,
    arguments: materialized.args,
    session: state.session,
    signal: state.callerSignal,
    scope: input.scope,
    parent: state.parent,
    nested: state.nested,
  })
  state.exec = exec
}
