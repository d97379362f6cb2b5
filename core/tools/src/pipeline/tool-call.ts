/**
 * What a tool body receives as its `ToolCall`. `execute(name, args, options?)`
 * is a sub-call through the whole pipeline — audited, gated, approved,
 * confined — with `parent` set to this call (so it is allowed under code
 * mode, where a model-direct native name collapses, and a tracer parents its
 * span on this call's). It is a getter on the prototype: a call whose body
 * never uses it pays nothing for it, and `const { execute } = call` works.
 */
import type { JsonValue, Session } from '@dsh/kernel'
import type { SandboxMode } from '@dsh/kernel'
import type { ExecuteInput, Execution, ParentToken, ProgressReport, SubCallOptions, ToolCall, ToolResult } from '../types.js'
import type { AuditFacts, PipelineEnv } from './state.js'

type Dispatcher = (env: PipelineEnv, input: ExecuteInput) => Promise<ToolResult>

let dispatch: Dispatcher | undefined

/** Set once by run.ts (which imports this module): the pipeline entry a sub-call goes through. */
export function setDispatcher(run: Dispatcher): void {
  dispatch = run
}

// `#` fields (not a cordis service, so no proxy): a body cannot reach the pipeline's state through its call
export class BodyCall implements ToolCall {
  /** sub-calls made so far (their ids are `<callId>:call:<n>`) */
  #subCalls = 0
  #token: ParentToken | undefined = undefined
  #bound: ToolCall['execute'] | undefined = undefined
  readonly #audit: AuditFacts
  readonly #env: PipelineEnv

  constructor(
    readonly callId: string,
    readonly name: string,
    readonly session: Session,
    readonly signal: AbortSignal,
    readonly nested: boolean,
    readonly exec: Execution,
    readonly approvedSandboxMode: SandboxMode | undefined,
    audit: AuditFacts,
    readonly progress: (report: ProgressReport) => void,
    env: PipelineEnv,
  ) {
    this.#audit = audit
    this.#env = env
  }

  record(facts: Record<string, JsonValue>): void {
    this.#audit.add(facts)
  }

  get execute(): ToolCall['execute'] {
    return (this.#bound ??= (name, args, options) => this.#subCall(name, args, options))
  }

  #subCall(name: string, args: unknown, options: SubCallOptions | undefined): Promise<ToolResult> {
    if (!this.#token) {
      // the kernel's own token for this call: only tokens it issued make a call nested
      this.#token = Object.freeze({ callId: this.callId })
      this.#env.tokens.add(this.#token)
    }
    const callId = `${this.callId}:call:${++this.#subCalls}`
    // the caller's cancellation (and every deadline on this body) always reaches the sub-call
    const signal = options?.signal instanceof AbortSignal ? AbortSignal.any([this.signal, options.signal]) : this.signal
    return dispatch!(this.#env, { callId, name, arguments: args, session: this.session, signal, scope: this.exec.scope, parent: this.#token })
  }
}
