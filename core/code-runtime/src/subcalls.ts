/**
 * The host side of a run's sub-calls: at most `maxParallelSubCalls` reach the
 * bridge at once, the rest wait in order (never rejected for waiting). Each
 * answer goes back as JSON text, measured against `maxValueBytes`; a bridge
 * that throws or answers something that is not JSON fails that sub-call only.
 */
import type { CodeLimits } from './limits.js'
import type { CallMessage, ResultMessage } from './protocol.js'
import type { JsonValue, SubCallBridge, SubCallOutcome } from './types.js'

export class SubCalls {
  private readonly waiting: CallMessage[] = []
  private inFlight = 0

  constructor(
    private readonly bridge: SubCallBridge,
    private readonly limits: CodeLimits,
    /** aborted when the run ends: nothing more is dispatched or answered */
    private readonly signal: AbortSignal,
    private readonly reply: (message: ResultMessage) => void,
  ) {}

  enqueue(message: CallMessage): void {
    this.waiting.push(message)
    this.pump()
  }

  private pump(): void {
    while (this.inFlight < this.limits.maxParallelSubCalls && this.waiting.length > 0 && !this.signal.aborted) {
      this.dispatch(this.waiting.shift()!)
    }
  }

  private dispatch(message: CallMessage): void {
    this.inFlight++
    let answer: Promise<SubCallOutcome>
    try {
      // the worker produced this text with JSON.stringify: it parses, and to plain data only
      const args = JSON.parse(message.json) as JsonValue
      // a bridge that answers synchronously is taken as well
      answer = Promise.resolve(this.bridge(message.name, args, message.call, this.signal))
    } catch (error) {
      answer = Promise.reject(error)
    }
    answer.then(
      outcome => this.settle(message, outcome),
      (error: unknown) => this.settle(message, { ok: false, code: 'TOOL_FAILED', message: describe(error) }),
    )
  }

  private settle(message: CallMessage, outcome: SubCallOutcome): void {
    this.inFlight--
    if (!this.signal.aborted) this.reply(this.encode(message, outcome))
    try {
      outcome?.settled?.()
    } catch {
      // the bridge's own bookkeeping: the answer is given either way
    }
    this.pump()
  }

  private encode(message: CallMessage, outcome: SubCallOutcome): ResultMessage {
    const { run, call, name } = message
    const fail = (code: string, text: string): ResultMessage & { ok: false } => ({ t: 'result', run, call, ok: false, code, message: text })
    if (outcome === null || typeof outcome !== 'object') return fail('TOOL_FAILED', `tools.${name}: the bridge answered ${String(outcome)}`)
    if (!outcome.ok) return fail(String(outcome.code), String(outcome.message))
    let json: string | undefined
    try {
      json = JSON.stringify(outcome.value === undefined ? null : outcome.value)
    } catch (error) {
      return fail('TOOL_FAILED', `tools.${name}: the result is not JSON-serializable: ${describe(error)}`)
    }
    if (json === undefined) return fail('TOOL_FAILED', `tools.${name}: the result is not JSON-serializable`)
    const max = this.limits.maxValueBytes
    // a UTF-16 unit is 1 to 3 UTF-8 bytes: count exactly only when the bounds disagree
    const bytes = json.length > max || json.length * 3 > max ? Buffer.byteLength(json) : json.length
    if (bytes > max) {
      return { ...fail('LIMIT', `tools.${name}: the result is ${bytes} bytes of JSON, over the limit of ${max}`), limit: true }
    }
    return { t: 'result', run, call, ok: true, json }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
