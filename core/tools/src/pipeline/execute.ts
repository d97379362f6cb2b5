/**
 * Gate 3: the `tools/execute` around-waterfall and the body. A wrapper may
 * only call `next({ signal })`; whatever it passes, the body's signal is that
 * signal fused with the caller's, so no wrapper can shed the caller's
 * cancellation. A started body is always awaited. Body failures become
 * results: a throw is `TOOL_FAILED`, a caller abort `ABORTED`, a deadline
 * `TIMEOUT`.
 */
import { compose, describeError, fuseSignals, KernelError } from '@dsh/kernel'
import { errorResult, outputToResult } from '../results.js'
import type { SandboxMode } from '@dsh/kernel'
import type { ExecuteInput, ToolCall, ToolOutput, ToolResult } from '../types.js'
import type { AuditFacts, Call, PipelineEnv, Prepared } from './state.js'
import { BodyCall } from './tool-call.js'
import { sourceOf } from './sources.js'

/** a failing `tools/execute` wrapper (which one is not tracked: wrappers only pass signals on) */
const WRAPPER = Object.freeze(sourceOf('body', undefined, 'a tools/execute wrapper'))

type Ready = Extract<Prepared, { kind: 'ready' }>

/** What the body runs with, besides its signal. */
interface Dispatch {
  readonly env: PipelineEnv
  readonly call: Call
  readonly ready: Ready
  readonly approvedSandboxMode: SandboxMode | undefined
  readonly audit: AuditFacts
}

interface NextOverride {
  signal?: AbortSignal
}

function isDeadline(reason: unknown): boolean {
  return (reason instanceof Error || (typeof DOMException !== 'undefined' && reason instanceof DOMException))
    && ((reason as Error).name === 'TimeoutError' || KernelError.is(reason, 'TIMEOUT'))
}

/** Classify how a body that ran under `signal` ended, given the caller's signal. */
function abortedResult(call: Call, owner: string, signal: AbortSignal): ToolResult | undefined {
  const { callId, name } = call
  if (call.callerSignal.aborted) return errorResult(callId, name, 'ABORTED', `call ${callId} (${name}) was aborted while running`, sourceOf('body', owner, 'the caller aborted'))
  if (!signal.aborted) return
  if (isDeadline(signal.reason)) {
    const message = describeError(signal.reason)
    return errorResult(callId, name, 'TIMEOUT', message.includes(name) ? message : `${name}: ${message}`, sourceOf('body', owner, 'a deadline'))
  }
  return errorResult(callId, name, 'ABORTED', `${name} was aborted by a tools/execute wrapper: ${describeError(signal.reason)}`, sourceOf('body', owner, 'a tools/execute wrapper aborted it'))
}

function ignoreProgress(): void {}

/** The body's `progress`: the host's listener, which can neither throw into the body nor see it return */
function progressOf(input: ExecuteInput): ToolCall['progress'] {
  const listener = input.onProgress
  if (typeof listener !== 'function') return ignoreProgress
  return (report) => {
    try {
      listener(report)
    } catch {}
  }
}

/** Run the body; a body that answers at once is settled at once (no promise). */
function runBody(dispatch: Dispatch, signal: AbortSignal): ToolResult | Promise<ToolResult> {
  const { call, ready, audit } = dispatch
  const { callId, name } = call
  // the caller may have given up while the gates ran: the body never starts then
  if (call.callerSignal.aborted) return errorResult(callId, name, 'ABORTED_BEFORE_DISPATCH', `call ${callId} was aborted before dispatch`, sourceOf('body', ready.entry.ownerName, 'the caller aborted'))
  // one signal for the body: its exec carries the same fused signal as the call (a deadline a
  // wrapper added reaches a body that listens to either), built only when a wrapper replaced it
  const exec = signal === ready.exec.signal ? ready.exec : Object.freeze({ ...ready.exec, signal })
  const toolCall: ToolCall = new BodyCall(callId, name, call.session, signal, call.nested, exec, dispatch.approvedSandboxMode, audit, progressOf(call.input), dispatch.env)
  let output: unknown
  const owner = ready.entry.ownerName
  try {
    output = ready.entry.def.execute(exec.arguments, toolCall)
  } catch (error) {
    return bodyFailed(call, owner, signal, error)
  }
  if (output && typeof (output as Promise<unknown>).then === 'function') {
    return Promise.resolve(output).then((settled) => bodyAnswered(call, owner, signal, settled), (error) => bodyFailed(call, owner, signal, error))
  }
  return bodyAnswered(call, owner, signal, output)
}

function bodyAnswered(call: Call, owner: string, signal: AbortSignal, output: unknown): ToolResult {
  try {
    return abortedResult(call, owner, signal) ?? outputToResult(call.callId, call.name, output as ToolOutput)
  } catch (error) {
    return bodyFailed(call, owner, signal, error)
  }
}

function bodyFailed(call: Call, owner: string, signal: AbortSignal, error: unknown): ToolResult {
  const { callId, name } = call
  const aborted = abortedResult(call, owner, signal)
  if (aborted) return aborted
  // a body that could not be confined, that hit its own deadline (run_code's program
  // timeout, bash's), or that the sandbox's policy refused (web_fetch's host), says so with
  // its own code rather than as a generic failure
  if (KernelError.is(error, 'SANDBOX_UNAVAILABLE')) return errorResult(callId, name, 'SANDBOX_UNAVAILABLE', `${name}: ${describeError(error)}`, sourceOf('sandbox', owner))
  if (KernelError.is(error, 'TIMEOUT')) return errorResult(callId, name, 'TIMEOUT', `${name}: ${describeError(error)}`, sourceOf('body', owner, 'its own deadline'))
  if (KernelError.is(error, 'DENIED')) return errorResult(callId, name, 'DENIED', `${name}: ${describeError(error)}`, sourceOf('body', owner))
  return errorResult(callId, name, 'TOOL_FAILED', `${name} failed: ${describeError(error)}`, sourceOf('body', owner))
}

export function execute(env: PipelineEnv, call: Call, ready: Ready, approvedSandboxMode: SandboxMode | undefined, audit: AuditFacts): ToolResult | Promise<ToolResult> {
  const dispatch: Dispatch = { env, call, ready, approvedSandboxMode, audit }
  return call.gates.around.length === 0 ? runBody(dispatch, call.callerSignal) : new Wrapped(dispatch).run()
}

/** One call through the `tools/execute` wrappers: the signal they built, the body once started. */
class Wrapped {
  private signal: AbortSignal
  private releases: Array<() => void> | undefined
  private body: Promise<ToolResult> | undefined
  private closed = false

  constructor(private dispatch: Dispatch) {
    this.signal = dispatch.call.callerSignal
  }

  run(): Promise<ToolResult> {
    let chain: Promise<unknown>
    try {
      chain = compose(this.dispatch.call.gates.around, this.dispatch.ready.exec, this.fallback, { mapNext: this.mapNext })
    } catch (error) {
      chain = Promise.reject(error)
    }
    // every wrapper handed next()'s promise straight back: the chain is the body, and no second
    // promise or turn is spent on it (a wrapper's next() was called once, so it cannot start it again)
    if (chain === this.body && !this.releases) {
      this.closed = true
      return this.body
    }
    return this.settle(chain)
  }

  private fallback = (): Promise<ToolResult> => {
    // a wrapper holding on to next() cannot start the body after the call was settled
    if (this.closed) return Promise.reject(new KernelError('TOOL_FAILED', `${this.dispatch.call.name}: next() was called after the tools/execute chain had finished`))
    return (this.body = Promise.resolve(runBody(this.dispatch, this.signal)))
  }

  private mapNext = (exec: unknown, arg: unknown): any => {
    const override = arg as NextOverride
    if (override && typeof override === 'object' && override.signal instanceof AbortSignal) {
      const fused = fuseSignals(this.signal, override.signal)
      ;(this.releases ??= []).push(fused.release)
      this.signal = fused.signal
    }
    return exec
  }

  /** The slow path: wait for the chain, then for the body whatever the wrappers did. */
  private async settle(chain: Promise<unknown>): Promise<ToolResult> {
    const { callId, name } = this.dispatch.call
    let wrapperError: unknown
    try {
      await chain
    } catch (error) {
      wrapperError = error
    }
    this.closed = true
    try {
      const body = this.body
      if (!body) {
        return errorResult(callId, name, 'TOOL_FAILED', wrapperError
          ? `a tools/execute wrapper failed before the tool ran: ${describeError(wrapperError)}`
          : 'a tools/execute wrapper did not call next(): the tool never ran', WRAPPER)
      }
      // the body is awaited even when a wrapper returned or threw early
      const result = await body
      if (wrapperError && !result.isError) {
        return errorResult(callId, name, 'TOOL_FAILED', `a tools/execute wrapper failed after the tool ran: ${describeError(wrapperError)}`, WRAPPER)
      }
      return result
    } finally {
      if (this.releases) for (const release of this.releases) release()
    }
  }
}
