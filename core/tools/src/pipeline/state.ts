/**
 * The values the pipeline's steps hand each other. `Call` is what is known of
 * a call before prepare and never changes; each step's answer is a tagged
 * value (`Prepared`, `Admitted`) read by the steps after it, never written back.
 */
import type { JsonValue, ListenerList, Session } from '@dsh/kernel'
import type { GuardEntry, Registry, ToolEntry } from '../registry.js'
import type { ErrorSource, ExecuteInput, Execution, ParentToken, ToolDefinition, ToolResult } from '../types.js'
import type { ApprovalGate } from '../approval-gate.js'
import type { SandboxMode } from '@dsh/kernel'

type Fn = (...args: any[]) => any

/** What the pipeline needs of the sandbox service: the mode a call would run under. */
export interface SandboxModes {
  resolveMode(session: Session, approvedExplicit?: SandboxMode): SandboxMode
}

/** The listener and guard set a call started with (a reload never changes it mid-call). */
export interface GateSet {
  readonly pre: readonly Fn[]
  readonly around: readonly Fn[]
  readonly post: readonly Fn[]
  readonly guards: readonly GuardEntry[]
}

/** What the pipeline needs from the service. */
export interface PipelineEnv {
  registry: Registry
  lists: { pre: ListenerList; around: ListenerList; post: ListenerList; result: ListenerList }
  /** the approval service, if one is running */
  approval(): ApprovalGate | undefined
  /** the sandbox service's mode resolution, if one is running */
  sandbox(): SandboxModes | undefined
  /** tokens handed out to `run_code` sub-dispatches */
  tokens: WeakSet<object>
  /** set while a reload swaps plugins: calls that start meanwhile wait for it */
  barrier?: Promise<void>
}

/** A call as it enters the pipeline: who asks, under which signal, with which gates. */
export interface Call {
  readonly input: ExecuteInput
  readonly callId: string
  readonly name: string
  readonly session: Session
  readonly callerSignal: AbortSignal
  readonly nested: boolean
  readonly parent: ParentToken | undefined
  readonly gates: GateSet
}

export type Finalizer = ToolDefinition['finalizeContent']

/**
 * Prepare's answer. Both carry the call's one `Execution` (a refused call's has
 * no arguments) and the visible tool's finalizer, which applies to every outcome.
 */
export type Prepared =
  | { readonly kind: 'ready'; readonly exec: Execution; readonly entry: ToolEntry; readonly finalizer: Finalizer }
  | { readonly kind: 'refused'; readonly exec: Execution; readonly result: ToolResult; readonly finalizer: Finalizer }

/** One demand for an approval: gate 1's ask, or a guard's. */
export interface Ask {
  readonly reason: string | undefined
  /** who asked, for messages: "plugin policy", "guard no-push of plugin git-rules" */
  readonly asker: string
  /** the explicit mode gate 1's ask names (a guard's ask names none) */
  readonly sandboxMode?: SandboxMode
  readonly source: ErrorSource
}

/** Gate 1's answer: allowed, refused, or waiting on an approval (asked once the guards have run). */
export type Gate1 =
  | { readonly kind: 'allow' }
  | { readonly kind: 'refused'; readonly result: ToolResult }
  | { readonly kind: 'ask'; readonly asks: readonly Ask[] }

/** Gate 2's answer: a guard's denial, the asks of guards, or nothing (undefined) when every guard passed. */
export type Guarded = { readonly kind: 'refused'; readonly result: ToolResult } | { readonly kind: 'ask'; readonly asks: readonly Ask[] } | undefined

/** The approval's answer: the call goes on (under the sandbox mode an approval granted, if any), or it ended. */
export type Admitted =
  | { readonly kind: 'admitted'; readonly approvedSandboxMode?: SandboxMode }
  | { readonly kind: 'refused'; readonly result: ToolResult }

/** Audit facts a call gathers for its `tool/result` line (an approved mode, a sandbox backend). */
export class AuditFacts {
  facts: Record<string, JsonValue> | undefined = undefined

  add(facts: Record<string, JsonValue>): void {
    Object.assign(this.facts ??= {}, facts)
  }
}

const NO_ARGUMENTS = Object.freeze({})

/** The call's `Execution`, built once, by prepare (`args` absent for a call refused before they were accepted). */
export function executionOf(call: Call, args?: Execution['arguments']): Execution {
  return Object.freeze({
    callId: call.callId,
    name: call.name,
    arguments: args ?? NO_ARGUMENTS,
    session: call.session,
    signal: call.callerSignal,
    scope: call.input.scope,
    parent: call.parent,
    nested: call.nested,
  })
}
