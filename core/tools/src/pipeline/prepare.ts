/**
 * Step 1, prepare: audit first (`tool/call`), then refuse what must never reach
 * a policy — an aborted caller, arguments that are not lossless JSON, a name
 * the caller may not execute (the code-mode collapse), arguments that fail the
 * schema — and freeze what was accepted.
 */
import { clipInput, describeError, freezeSnapshot, NotJsonError, quoteInput, snapshot, type JsonObject, type JsonValue } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { ResultErrorCode } from '@dsh/kernel'
import { executionOf, type Call, type Finalizer, type PipelineEnv, type Prepared } from './state.js'
import { PREPARE, sourceOf } from './sources.js'
import type { ErrorSource } from '../types.js'

type Materialized = { readonly ok: true; readonly args: JsonObject } | { readonly ok: false; readonly problem: string }

/** A copy of the arguments (what is logged and validated is what everyone sees), or why there is none. */
function materialize(raw: unknown): Materialized {
  if (raw === undefined) return { ok: true, args: {} }
  try {
    return { ok: true, args: snapshot<JsonObject>(raw) }
  } catch (error) {
    return { ok: false, problem: error instanceof NotJsonError ? error.message : `arguments cannot be read: ${describeError(error)}` }
  }
}

function refused(call: Call, finalizer: Finalizer, code: ResultErrorCode, message: string, source: ErrorSource = PREPARE): Prepared {
  return { kind: 'refused', exec: executionOf(call), result: errorResult(call.callId, call.name, code, message, source), finalizer }
}

/** the code-mode collapse: a model-direct call under `code` names only run_code */
const COLLAPSED = Object.freeze(sourceOf('prepare', undefined, 'tools mode: this name is not callable directly here'))

export function prepare(env: PipelineEnv, call: Call): Prepared {
  const { callId, name, input } = call
  // the finalizer of the *visible* tool is captured before the arguments are touched, and the
  // executable entry is resolved now, with the gate set: a reload later in the call changes neither
  const visible = env.registry.get(name, input.scope)
  const finalizer = visible?.def.finalizeContent
  const entry = env.registry.resolveExecution(name, call.nested, input.scope, visible)

  const materialized = materialize(input.arguments)
  const args = materialized.ok ? materialized.args : undefined
  const logged: { callId: string; name: string; arguments?: JsonValue; unloggable?: string; parent?: string } = { callId, name }
  if (materialized.ok) logged.arguments = materialized.args
  else logged.unloggable = materialized.problem
  if (call.parent) logged.parent = call.parent.callId
  try {
    // written now, before anything can act on the call; frozen after the line is
    // built: serializing a frozen object takes V8's slow path
    call.session.write('tool/call', logged)
  } catch (error) {
    // an unaudited call never runs
    return refused(call, finalizer, 'DENIED', `the call could not be written to the session log: ${describeError(error)}`)
  } finally {
    if (args) freezeSnapshot(args)
  }

  if (call.callerSignal.aborted) return refused(call, finalizer, 'ABORTED_BEFORE_DISPATCH', `call ${callId} was aborted before dispatch`)
  if (input.parent !== undefined && !call.parent) return refused(call, finalizer, 'DENIED', 'the parent token is not one the kernel issued')
  if (!materialized.ok) return refused(call, finalizer, 'INVALID_ARGS', `TypeError: ${materialized.problem}`)
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return refused(call, finalizer, 'INVALID_ARGS', 'arguments must be a JSON object')
  if (!entry) return refused(call, finalizer, 'UNKNOWN_TOOL', `unknown tool ${typeof name === 'string' ? quoteInput(name) : clipInput(String(JSON.stringify(name)))}`, visible ? COLLAPSED : PREPARE)

  const problem = env.registry.checkOf(entry)(args)
  if (problem) return refused(call, finalizer, 'INVALID_ARGS', `${name}: ${problem}`, sourceOf('prepare', entry.ownerName, 'the parameters schema'))
  return { kind: 'ready', exec: executionOf(call, args), entry, finalizer }
}

/** A call whose `callId` or `name` is not a string is audited as such and refused. */
export async function refuseIds(call: Call): Promise<Prepared> {
  const problem = 'callId and name must be strings'
  await call.session.append('tool/call', { callId: call.callId, name: call.name, unloggable: problem }).catch(() => {})
  return { kind: 'refused', exec: executionOf(call), result: errorResult(call.callId, call.name, 'INVALID_ARGS', problem, PREPARE), finalizer: undefined }
}
