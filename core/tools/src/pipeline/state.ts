/**
 * What one call carries through the pipeline, and what the pipeline needs from
 * the service. Each step is a function of these two.
 */
import type { JsonValue, ListenerList, Session } from '@dsh/kernel'
import type { GuardEntry, Registry, ToolEntry } from '../registry.js'
import type { ExecuteInput, Execution, ParentToken, ToolDefinition, ToolResult } from '../types.js'
import type { ApprovalGate, SandboxModeName } from '../approval-gate.js'

type Fn = (...args: any[]) => any

/** The listener and guard set a call started with (a reload never changes it mid-call). */
export interface GateSet {
  pre: readonly Fn[]
  around: readonly Fn[]
  post: readonly Fn[]
  guards: readonly GuardEntry[]
}

export interface PipelineEnv {
  registry: Registry
  lists: { pre: ListenerList; around: ListenerList; post: ListenerList; result: ListenerList }
  /** the approval service, if one is running */
  approval(): ApprovalGate | undefined
  /** tokens handed out to `run_code` sub-dispatches */
  tokens: WeakSet<object>
  /** set while a reload swaps plugins: calls that start meanwhile wait for it */
  barrier?: Promise<void>
}

export interface CallState {
  input: ExecuteInput
  callId: string
  name: string
  session: Session
  callerSignal: AbortSignal
  nested: boolean
  parent?: ParentToken
  entry?: ToolEntry
  exec?: Execution
  /** the visible tool's finalizer, captured before anything else (also for collapsed calls) */
  finalizer?: ToolDefinition['finalizeContent']
  gates: GateSet
  /** extra audit facts for `tool/result` (a sandbox backend, say) */
  record?: Record<string, JsonValue>
  /** a sandbox mode an approval granted for this call */
  approvedSandboxMode?: SandboxModeName
}

export type Step = (env: PipelineEnv, state: CallState) => Promise<ToolResult | undefined> | ToolResult | undefined

/** The call's execution, or a stand-in for a call refused before it had one. */
export function execOf(state: CallState): Execution {
  return state.exec ?? (state.exec = Object.freeze({
    callId: state.callId,
    name: state.name,
    arguments: Object.freeze({}),
    session: state.session,
    signal: state.callerSignal,
    scope: state.input.scope,
    parent: state.parent,
    nested: state.nested,
  }))
}
