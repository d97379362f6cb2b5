/**
 * Step 6: the tool's `finalizeContent` (exactly once, for every outcome), a deep
 * freeze, the `tool/result` event, then the `tools/result` observers one by
 * one — a throwing observer breaks nothing.
 */
import { describeError, frozenSnapshot, KernelError, type JsonValue } from '@dsh/kernel'
import { unwrapListener } from '@dsh/kernel/internals'
import { errorResult, freezeResult, normalizeContent } from '../results.js'
import type { Execution, ToolResult } from '../types.js'
import type { Call, Finalizer, PipelineEnv } from './state.js'
import { sourceOf } from './sources.js'

const FINALIZER = Object.freeze(sourceOf('body', undefined, 'finalizeContent'))
const UNLOGGED = Object.freeze(sourceOf('post-execute', undefined, 'the session log'))

/** How a call ended, and what finalize needs to close it. */
export interface Ending {
  readonly exec: Execution
  readonly finalizer: Finalizer
  /** extra audit facts for `tool/result` (a sandbox backend, say) */
  readonly facts: Record<string, JsonValue> | undefined
}

function applyFinalizer(call: Call, ending: Ending, result: ToolResult): ToolResult {
  const finalizer = ending.finalizer
  if (!finalizer) return result
  try {
    const content = finalizer(ending.exec, result)
    if (content === undefined) return result
    if (!Array.isArray(content)) throw new TypeError('finalizeContent must return content blocks or undefined')
    return { ...result, content: normalizeContent(content) }
  } catch (error) {
    // a failing finalizer must not leak the content it would have rewritten
    return errorResult(call.callId, call.name, 'TOOL_FAILED', `finalizeContent of ${call.name} failed: ${describeError(error)}`, FINALIZER)
  }
}

/**
 * Queue the `tool/result` line; returns why it could not be, if it could not.
 * The line shares the next write (the next call's `tool/call`, or the next turn
 * of the event loop). It is built before the freeze: serializing a frozen
 * object takes V8's slow path, so a result gate 4 froze at the top is copied.
 */
function logResult(call: Call, facts: Ending['facts'], finalized: ToolResult): unknown {
  let unserializable: unknown
  try {
    const logged = facts ? { ...facts, ...finalized } : Object.isFrozen(finalized) ? { ...finalized } : finalized
    call.session.post('tool/result', logged as any)
    return undefined
  } catch (error) {
    if (!KernelError.is(error, 'INVALID_EVENT')) return error
    unserializable = error
  }
  // a fact a body recorded that is not JSON must not cost the call its result line
  try {
    call.session.post('tool/result', { ...finalized, unloggable: `recorded facts: ${describeError(unserializable)}` } as any)
    return undefined
  } catch (error) {
    return error
  }
}

export function finalize(env: PipelineEnv, call: Call, outcome: ToolResult, ending: Ending): ToolResult {
  const finalized = applyFinalizer(call, ending, outcome)
  // a result that is not in the log (a closed or failed session) is not handed out as a success
  const unlogged = logResult(call, ending.facts, finalized) ?? call.session.failure
  let result = freezeResult(finalized)
  if (unlogged && !result.isError) {
    result = freezeResult(errorResult(call.callId, call.name, 'TOOL_FAILED', `${call.name} ran, but its result could not be written to the session log: ${describeError(unlogged)}`, UNLOGGED))
  }
  notify(env, ending.exec, result, ending.facts)
  return result
}

const NO_FACTS: Readonly<Record<string, JsonValue>> = Object.freeze({})

/** A frozen copy: no observer can change what the next one reads, nor the objects a body recorded. */
function factsOf(record: Record<string, JsonValue>): Readonly<Record<string, JsonValue>> {
  try {
    return frozenSnapshot<Record<string, JsonValue>>(record)
  } catch {
    // facts that are not JSON were not logged either (see logResult)
    return NO_FACTS
  }
}

function notify(env: PipelineEnv, exec: Execution, result: ToolResult, recorded: Ending['facts']): void {
  const hooks = env.lists.result.hooks()
  if (!hooks.length) return
  const facts = recorded ? factsOf(recorded) : NO_FACTS
  for (const hook of hooks) {
    try {
      const returned = unwrapListener(hook.callback)(exec, result, facts)
      if (returned && typeof returned.then === 'function') returned.then(undefined, () => {})
    } catch {
      // observers cannot affect the call
    }
  }
}
