/**
 * The pipeline, in order: prepare (or refuseIds) → pre-execute → guards →
 * ask (only on an ask) → mode check (only for a tool with `requiredMode`) →
 * execute → post-execute and the output check → finalize. `runPipeline`
 * never rejects: every failure is an error result, logged once.
 */
import { describeError, neverAborted, Session } from '@dsh/kernel'
import { checkOutput } from '../output-check.js'
import { errorResult } from '../results.js'
import type { ExecuteInput, ParentToken, ToolResult } from '../types.js'
import { execute } from './execute.js'
import { finalize } from './finalize.js'
import { runGuards } from './guards.js'
import { checkMode } from './mode-check.js'
import { postExecute } from './post-execute.js'
import { preExecute } from './pre-execute.js'
import { askApproval } from './ask.js'
import { PREPARE, sourceOf } from './sources.js'
import { setDispatcher } from './tool-call.js'
import { prepare, refuseIds } from './prepare.js'
import { AuditFacts, executionOf, type Admitted, type Call, type PipelineEnv, type Prepared } from './state.js'

/** a bug in a step: the kernel's, named as such */
const INTERNAL = Object.freeze(sourceOf('body', undefined, 'internal pipeline error'))

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
    return errorResult(callId, name, 'DENIED', 'a tool call needs an open session to be audited', PREPARE)
  }
  const parent = input.parent !== undefined && env.tokens.has(input.parent as object) ? (input.parent as ParentToken) : undefined
  const call: Call = {
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
  const audit = new AuditFacts()
  let prepared: Prepared | undefined
  let result: ToolResult
  try {
    prepared = typeof input.callId === 'string' && typeof input.name === 'string' ? prepare(env, call) : await refuseIds(call)
    result = prepared.kind === 'refused' ? prepared.result : await throughTheGates(env, call, prepared, audit)
  } catch (error) {
    // a bug in a step must still end as one logged error result
    result = errorResult(callId, name, 'TOOL_FAILED', `internal pipeline error: ${describeError(error)}`, INTERNAL)
  }
  try {
    return finalize(env, call, result, { exec: prepared?.exec ?? executionOf(call), finalizer: prepared?.finalizer, facts: audit.facts })
  } catch (error) {
    return errorResult(callId, name, 'TOOL_FAILED', `internal pipeline error while finalizing: ${describeError(error)}`, INTERNAL)
  }
}

type Ready = Extract<Prepared, { kind: 'ready' }>

const ADMITTED: Admitted = Object.freeze({ kind: 'admitted' })

/**
 * Gates 1–4 for a call prepare accepted. A gate with nothing registered is skipped outright, and
 * one that answers at once is not awaited: no promise, no turn of the microtask queue.
 */
async function throughTheGates(env: PipelineEnv, call: Call, ready: Ready, audit: AuditFacts): Promise<ToolResult> {
  const decided = call.gates.pre.length ? await preExecute(env, call, ready.exec) : undefined
  if (decided?.kind === 'refused') return decided.result

  const guarded = call.gates.guards.length ? runGuards(call, ready.exec) : undefined
  const verdict = guarded instanceof Promise ? await guarded : guarded
  if (verdict?.kind === 'refused') return verdict.result

  // deny > ask > allow: gate 1's ask and the guards' asks need one approval, whatever else allowed
  let admitted = ADMITTED
  if (decided?.kind === 'ask' || verdict) {
    const asks = decided?.kind === 'ask' ? (verdict ? [...decided.asks, ...verdict.asks] : decided.asks) : verdict!.asks
    admitted = await askApproval(env, call, ready.exec, asks, ready.entry.def)
    if (admitted.kind === 'refused') return admitted.result
    if (admitted.approvedSandboxMode) audit.add({ approvedSandboxMode: admitted.approvedSandboxMode })
  }
  const approvedMode = admitted.kind === 'admitted' ? admitted.approvedSandboxMode : undefined

  if (ready.entry.def.requiredMode !== undefined) {
    const needs = checkMode(env, call, ready, approvedMode)
    if (needs) return needs
  }

  const ran = execute(env, call, ready, approvedMode, audit)
  const result = ran instanceof Promise ? await ran : ran

  const after = call.gates.post.length ? await postExecute(env, call, ready.exec, result) : result
  // a listener's replacement value is held to the tool's output schema too
  return checkOutput(ready.entry, after)
}

// a body's ToolCall.execute goes through this same pipeline
setDispatcher(runPipeline)
