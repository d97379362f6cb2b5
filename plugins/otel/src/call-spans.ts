/**
 * One span per tool call: opened when gate 1 starts, closed by the call's
 * `tools/result`. Every step is guarded by its caller (plugin.ts): a tracer or
 * span processor that throws costs the call its span, never its outcome.
 *
 * The open calls are kept per module, weakly, by their `Execution` (the object
 * gate 1 and `tools/result` both receive): a reload that replaces the plugin
 * while a call runs still ends that call's span, and nothing outlives a call.
 */
import { context, INVALID_TRACEID, ProxyTracerProvider, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api'
import type { JsonValue, Session } from '@dsh/kernel'
import { resultText, type Execution, type PreToolDecision, type ToolResult } from '@dsh/tools'
import { approvalFacts, loggedApproval, type ApprovalFacts } from './approval-facts.js'
import * as A from './attributes.js'
import type { Config } from './config.js'
import { verdictOf, type GateAnswer } from './verdict.js'

export interface OpenCall {
  span: Span
  gate?: GateAnswer
  /** when gate 1 answered `ask` (epoch ms, the performance clock the SDK uses too) */
  askedAt?: number
  /** recorded attributes that were cut to `maxAttributeBytes` */
  truncated?: string[]
  /** the session's `lastDurableSeq` when the span opened: unmoved at the end, no approval was logged since */
  durableSeq?: number
}

/** A call whose span the SDK sampled out. */
const NOT_RECORDING: OpenCall = Object.freeze({ span: trace.wrapSpanContext({ traceId: '', spanId: '', traceFlags: 0 }) })
/** how the status description is named in `dsh.truncated` (the name non-OTLP exporters give it) */
const STATUS_DESCRIPTION = 'otel.status_description'

const open = new WeakMap<Execution, OpenCall>()
/** open spans by call id, per session: the parents of sub-calls (found through the call's `parent` token) */
const runs = new WeakMap<Session, Map<string, Span>>()

const now = () => performance.timeOrigin + performance.now()

/** what the API's provider delegates to while no SDK is registered */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate()

/** Whether a tracer provider is registered now (one global read; a host may register one at any time). */
function tracing(): boolean {
  const provider = trace.getTracerProvider()
  // not the API's own proxy: some other provider, so assume it records
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_PROVIDER
}

export class CallSpans {
  constructor(private tracer: Tracer, private config: Config) {}

  /** Open the call's span; returns it only when it records (no SDK registered: nothing to do). */
  start(exec: Execution): OpenCall | undefined {
    // no SDK: the API would hand out a span that records nothing; skip building it
    if (!tracing()) return undefined
    const attributes: Attributes = {
      [A.GEN_AI_OPERATION_NAME]: A.EXECUTE_TOOL,
      [A.GEN_AI_TOOL_NAME]: exec.name,
      [A.GEN_AI_TOOL_CALL_ID]: exec.callId,
      [A.DSH_SESSION_ID]: exec.session.id,
    }
    if (exec.parent) attributes[A.DSH_CALL_PARENT] = exec.parent.callId
    const span = this.tracer.startSpan(A.spanName(exec.name), { kind: SpanKind.INTERNAL, attributes }, this.parentOf(exec))
    const recording = span.isRecording()
    if (!recording || (!exec.parent && exec.name === 'run_code')) {
      // an SDK gives every span a trace id, sampled or not; the API alone gives the invalid one
      const sdk = span.spanContext().traceId !== INVALID_TRACEID
      // a sampled-out run_code still parents its sub-calls (they inherit the decision not to record)
      if (sdk && !exec.parent && exec.name === 'run_code') this.runsOf(exec.session).set(exec.callId, span)
      if (!recording) {
        // sampled out: remembered, so an error result does not open a second span
        if (sdk) open.set(exec, NOT_RECORDING)
        return undefined
      }
    }
    const call: OpenCall = { span, durableSeq: exec.session.lastDurableSeq }
    // any recording call may parent sub-calls (a run_code program's, or a body's ToolCall.execute)
    if (exec.parent || exec.name !== 'run_code') this.runsOf(exec.session).set(exec.callId, span)
    if (this.config.recordArguments) this.setCut(call, A.GEN_AI_TOOL_CALL_ARGUMENTS, JSON.stringify(exec.arguments))
    open.set(exec, call)
    return call
  }

  /** What gate 1 answered (`undefined`: its chain failed, which denies). */
  gate(call: OpenCall, decision: PreToolDecision | undefined): void {
    const kind = decision?.kind
    call.gate = kind === 'allow' || kind === 'deny' || kind === 'ask' ? kind : 'failed'
    if (kind === 'ask') call.askedAt = now()
  }

  /** Close the call's span with what became of it. */
  end(exec: Execution, result: ToolResult, facts: Readonly<Record<string, JsonValue>>): void {
    // refused before gate 1 (unknown tool, invalid arguments …: always an error), a span of its own now; a
    // success without an open span was not recorded when it started
    const call = open.get(exec) ?? (result.isError ? this.start(exec) : undefined)
    open.delete(exec)
    runs.get(exec.session)?.delete(exec.callId)
    if (!call || call === NOT_RECORDING) return
    const span = call.span
    // gate 1 asked: read (or infer) the approval; else only a guard's ask could have asked, and then
    // the log says so — read only when a durable event (approvals are) was logged since the span opened
    const approval = asked(call.gate, result) ? approvalFacts(exec.session, exec.callId, result)
      : mayHaveAsked(call.gate, result) && exec.session.lastDurableSeq !== call.durableSeq ? loggedApproval(exec.session, exec.callId) : undefined
    const verdict = verdictOf(call.gate, approval, result)
    if (verdict) {
      span.setAttributes({ [A.DSH_DECISION]: verdict.decision, [A.DSH_DECISION_BY]: verdict.by })
      if (verdict.plugin !== undefined) span.setAttribute(A.DSH_DECISION_PLUGIN, verdict.plugin)
    }
    if (approval) this.recordApproval(span, call, approval)
    recordSandbox(span, facts)
    if (this.config.recordResults) this.setCut(call, A.GEN_AI_TOOL_CALL_RESULT, resultRecord(result))
    if (result.isError) {
      const code = result.error?.code ?? 'TOOL_FAILED'
      span.setAttribute(A.ERROR_TYPE, code)
      // the message can quote arguments or output: it is recorded with the results only
      const message = this.config.recordResults && result.error ? this.cut(call, STATUS_DESCRIPTION, result.error.message) : code
      span.setStatus({ code: SpanStatusCode.ERROR, message })
    }
    if (call.truncated) span.setAttribute(A.DSH_TRUNCATED, call.truncated)
    span.end()
  }

  private parentOf(exec: Execution): Context {
    // a sub-call's parent is its run_code call, named by the token, whatever context is active
    const parent = exec.parent && runs.get(exec.session)?.get(exec.parent.callId)
    return parent ? trace.setSpan(ROOT_CONTEXT, parent) : context.active()
  }

  private runsOf(session: Session): Map<string, Span> {
    let map = runs.get(session)
    if (!map) runs.set(session, (map = new Map()))
    return map
  }

  private recordApproval(span: Span, call: OpenCall, approval: ApprovalFacts): void {
    const attributes: Attributes = { [A.DSH_APPROVAL_OUTCOME]: approval.outcome }
    if (approval.grant) attributes[A.DSH_APPROVAL_GRANT] = approval.grant
    if (approval.by) attributes[A.DSH_APPROVAL_BY] = approval.by
    if (approval.sandboxMode) attributes[A.DSH_APPROVAL_SANDBOX_MODE] = approval.sandboxMode
    span.setAttributes(attributes)
    const event: Attributes = { ...attributes }
    if (approval.waitMs !== undefined) event[A.DSH_APPROVAL_WAIT_MS] = approval.waitMs
    span.addEvent(A.DSH_APPROVAL_EVENT, event, call.askedAt)
  }

  /** Set a recorded text attribute, cut to the configured size. */
  private setCut(call: OpenCall, key: string, text: string | undefined): void {
    if (text !== undefined) call.span.setAttribute(key, this.cut(call, key, text))
  }

  /** `text` within `maxAttributeBytes`; a cut is named in `dsh.truncated`. */
  private cut(call: OpenCall, key: string, text: string): string {
    const cut = A.cutToBytes(text, this.config.maxAttributeBytes)
    if (cut === undefined) return text
    ;(call.truncated ??= []).push(key)
    return cut
  }
}

/** Refused before any approval was asked: by a listener, a guard, or prepare. */
const BEFORE_APPROVAL = new Set(['prepare', 'pre-execute', 'rule', 'hook', 'guard'])

/**
 * Whether an approval was asked for: gate 1 asked and nothing refused the call before the
 * question (a guard's deny comes first), or a guard asked and the approval decided the failure.
 */
function asked(gate: OpenCall['gate'], result: ToolResult): boolean {
  const kind = result.error?.source?.kind
  if (kind === 'approval') return true
  return gate === 'ask' && !(kind !== undefined && BEFORE_APPROVAL.has(kind))
}

/** A call gate 1 allowed that got past the guards: a guard's ask may have been approved. */
function mayHaveAsked(gate: OpenCall['gate'], result: ToolResult): boolean {
  const kind = result.error?.source?.kind
  return gate === 'allow' && !(kind !== undefined && BEFORE_APPROVAL.has(kind))
}

/** What a confined call recorded for `tool/result`: `{ sandbox: { backend, enforcement?, unenforced?, mode? } }`. */
function recordSandbox(span: Span, facts: Readonly<Record<string, JsonValue>>): void {
  const sandbox = facts.sandbox
  if (sandbox && typeof sandbox === 'object' && !Array.isArray(sandbox)) {
    if (typeof sandbox.backend === 'string') span.setAttribute(A.DSH_SANDBOX_BACKEND, sandbox.backend)
    if (typeof sandbox.enforcement === 'string') span.setAttribute(A.DSH_SANDBOX_ENFORCEMENT, sandbox.enforcement)
    if (Array.isArray(sandbox.unenforced)) span.setAttribute(A.DSH_SANDBOX_UNENFORCED, sandbox.unenforced.map(String))
    if (typeof sandbox.mode === 'string') span.setAttribute(A.DSH_SANDBOX_MODE, sandbox.mode)
  }
  if (typeof facts.approvedSandboxMode === 'string') span.setAttribute(A.DSH_APPROVAL_SANDBOX_MODE, facts.approvedSandboxMode)
}

/** A result as text: an error's message, else the value as JSON, else the text content. */
function resultRecord(result: ToolResult): string {
  if (result.isError) return result.error?.message ?? resultText(result)
  return result.value !== undefined ? JSON.stringify(result.value) : resultText(result)
}
