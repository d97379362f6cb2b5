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
import type { ToolCall, ToolOutput, ToolResult } from '../types.js'
import type { CallState, PipelineEnv } from './state.js'

interface NextOverride {
  signal?: AbortSignal
}

function isDeadline(reason: unknown): boolean {
  return (reason instanceof Error || (typeof DOMException !== 'undefined' && reason instanceof DOMException))
    && ((reason as Error).name === 'TimeoutError' || KernelError.is(reason, 'TIMEOUT'))
}

/** Classify how a body that ran under `signal` ended, given the caller's signal. */
function abortedResult(state: CallState, signal: AbortSignal): ToolResult | undefined {
  const { callId, name } = state
  if (state.callerSignal.aborted) return errorResult(callId, name, 'ABORTED', `call ${callId} (${name}) was aborted while running`)
  if (!signal.aborted) return
  if (isDeadline(signal.reason)) {
    const message = describeError(signal.reason)
    return errorResult(callId, name, 'TIMEOUT', message.includes(name) ? message : `${name}: ${message}`)
  }
  return errorResult(callId, name, 'ABORTED', `${name} was aborted by a tools/execute wrapper: ${describeError(signal.reason)}`)
}

/** Run the body; a body that answers at once is settled at once (no promise). */
function runBody(state: CallState, signal: AbortSignal): ToolResult | Promise<ToolResult> {
  const { callId, name } = state
  // the caller may have given up while the gates ran: the body never starts then
  if (state.callerSignal.aborted) return errorResult(callId, name, 'ABORTED_BEFORE_DISPATCH', `call ${callId} was aborted before dispatch`)
  const exec = state.exec!
  const call: ToolCall = { callId, name, session: state.session, signal, nested: state.nested, exec, approvedSandboxMode: state.approvedSandboxMode, record: (facts) => Object.assign(state.record ??= {}, facts) }
  let output: unknown
  try {
    output = state.entry!.def.execute(exec.arguments, call)
  } catch (error) {
    return bodyFailed(state, signal, error)
  }
  if (output && typeof (output as Promise<unknown>).then === 'function') {
    return Promise.resolve(output).then((settled) => bodyAnswered(state, signal, settled), (error) => bodyFailed(state, signal, error))
  }
  return bodyAnswered(state, signal, output)
}

function bodyAnswered(state: CallState, signal: AbortSignal, output: unknown): ToolResult {
  try {
    return abortedResult(state, signal) ?? outputToResult(state.callId, state.name, output as ToolOutput)
  } catch (error) {
    return bodyFailed(state, signal, error)
  }
}

function bodyFailed(state: CallState, signal: AbortSignal, error: unknown): ToolResult {
  const { callId, name } = state
  const aborted = abortedResult(state, signal)
  if (aborted) return aborted
  // a body that could not be confined, or that hit its own deadline (run_code's program
  // timeout), says so with its own code rather than as a generic failure
  if (KernelError.is(error, 'SANDBOX_UNAVAILABLE') || KernelError.is(error, 'TIMEOUT')) {
    return errorResult(callId, name, error.code as 'SANDBOX_UNAVAILABLE' | 'TIMEOUT', `${name}: ${describeError(error)}`)
  }
  return errorResult(callId, name, 'TOOL_FAILED', `${name} failed: ${describeError(error)}`)
}

export function execute(env: PipelineEnv, state: CallState): ToolResult | Promise<ToolResult> {
  return state.gates.around.length === 0 ? runBody(state, state.callerSignal) : wrapped(env, state)
}

function wrapped(_env: PipelineEnv, state: CallState): Promise<ToolResult> {
  const { name } = state
  let signal = state.callerSignal
  let releases: Array<() => void> | undefined
  let body: Promise<ToolResult> | undefined
  let closed = false
  const fallback = () => {
    // a wrapper holding on to next() cannot start the body after the call was settled
    if (closed) return Promise.reject(new KernelError('TOOL_FAILED', `${name}: next() was called after the tools/execute chain had finished`))
    return (body = Promise.resolve(runBody(state, signal)))
  }
  const mapNext = (exec: unknown, arg: unknown) => {
    const override = arg as NextOverride
    if (override && typeof override === 'object' && override.signal instanceof AbortSignal) {
      const fused = fuseSignals(signal, override.signal)
      ;(releases ??= []).push(fused.release)
      signal = fused.signal
    }
    return exec as any
  }
  let chain: Promise<unknown>
  try {
    chain = compose(state.gates.around, undefined, state.exec!, fallback, mapNext)
  } catch (error) {
    chain = Promise.reject(error)
  }
  // every wrapper handed next()'s promise straight back: the chain is the body, and no second
  // promise or turn is spent on it (a wrapper's next() was called once, so it cannot start it again)
  if (chain === body && !releases) {
    closed = true
    return body
  }
  return settle(state, chain, () => body, () => releases, () => { closed = true })
}

/** The slow path: wait for the chain, then for the body whatever the wrappers did. */
async function settle(
  state: CallState,
  chain: Promise<unknown>,
  bodyOf: () => Promise<ToolResult> | undefined,
  releasesOf: () => Array<() => void> | undefined,
  close: () => void,
): Promise<ToolResult> {
  const { callId, name } = state
  let wrapperError: unknown
  try {
    await chain
  } catch (error) {
    wrapperError = error
  }
  close()
  try {
    const body = bodyOf()
    if (!body) {
      return errorResult(callId, name, 'TOOL_FAILED', wrapperError
        ? `a tools/execute wrapper failed before the tool ran: ${describeError(wrapperError)}`
        : 'a tools/execute wrapper did not call next(): the tool never ran')
    }
    // the body is awaited even when a wrapper returned or threw early
    const result = await body
    if (wrapperError && !result.isError) {
      return errorResult(callId, name, 'TOOL_FAILED', `a tools/execute wrapper failed after the tool ran: ${describeError(wrapperError)}`)
    }
    return result
  } finally {
    const releases = releasesOf()
    if (releases) for (const release of releases) release()
  }
}
