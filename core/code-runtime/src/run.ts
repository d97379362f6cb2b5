/**
 * One run as the host sees it, from `run()` to its outcome: the deadline
 * (counted from `run()`, queueing included), the caller's abort, the sub-calls,
 * and the verdict. Once cancelled, the outcome is `TIMEOUT` or `ABORTED`
 * whatever the worker says. The caller gets it with the worker's logs if the
 * worker reports within `answerWithinMs`, else without them; a worker that has
 * not stopped `terminateAfterMs` after the cancellation is terminated.
 */
import type { CodeLimits } from './limits.js'
import type { CallMessage, DoneMessage, ResultMessage, RunMessage, WorkerOutcome } from './protocol.js'
import { SubCalls } from './subcalls.js'
import type { JsonValue, RunOutcome, RunRequest } from './types.js'

/** What a run needs from the worker it was given to. */
export interface RunHost {
  send(message: ResultMessage): void
  /** ask the worker to stop this run (a shared-memory flag: heard even in a busy loop) */
  cancel(run: number): void
  /** terminate the worker thread and start a replacement */
  kill(): void
}

type Cancellation = { code: 'TIMEOUT' | 'ABORTED'; message: string }

/** how long a cancelled run waits for the worker's logs before answering without them */
export const answerWithinMs = 50

export class HostRun {
  readonly done: Promise<RunOutcome>
  readonly deadline: number
  /** the tools the program may call; sub-calls name them by index */
  readonly tools: readonly string[]
  private resolve!: (outcome: RunOutcome) => void
  private finished = false
  private cancelled: Cancellation | undefined
  private host: RunHost | undefined
  private readonly ended = new AbortController()
  private readonly subcalls: SubCalls
  private readonly timer: NodeJS.Timeout
  private answerTimer: NodeJS.Timeout | undefined
  private killTimer: NodeJS.Timeout | undefined
  // sub-calls in flight hear the caller's own reason, as a body under no run would
  private readonly onAbort = () => this.cancel({ code: 'ABORTED', message: 'the caller aborted the run' }, this.request.signal?.reason)

  constructor(
    readonly id: number,
    private readonly request: RunRequest,
    readonly limits: CodeLimits,
    private readonly terminateAfterMs: number,
    private readonly onFinished: (run: HostRun) => void,
    /** a run nobody waits on (the runtime's own warm-up): it never keeps the process alive */
    readonly background = false,
  ) {
    this.done = new Promise(resolve => (this.resolve = resolve))
    // a name listed twice is one tool
    this.tools = [...new Set(request.tools)]
    this.deadline = Date.now() + limits.timeoutMs
    this.timer = setTimeout(() => this.cancel(this.timedOut()), limits.timeoutMs)
    if (this.background) this.timer.unref()
    request.signal?.addEventListener('abort', this.onAbort, { once: true })
    this.subcalls = new SubCalls(request.call, limits, this.ended.signal, message => this.host?.send(message))
  }

  /** The message that starts this run on `host`. */
  attach(host: RunHost): RunMessage {
    this.host = host
    return { t: 'run', run: this.id, code: this.request.code, tools: this.tools, limits: this.limits, deadline: this.deadline }
  }

  cancel(why: Cancellation, reason: unknown = new Error(why.message)): void {
    if (this.finished || this.cancelled) return
    this.cancelled = why
    // sub-calls still in flight hear it through their signal
    this.ended.abort(reason)
    const host = this.host
    if (!host) return this.finish({ ok: false, ...why, logs: '' })
    host.cancel(this.id)
    this.answerTimer = setTimeout(() => this.finish({ ok: false, ...why, logs: '' }), answerWithinMs)
    this.killTimer = setTimeout(() => {
      // the worker never stopped (a long operation QuickJS does not interrupt): replace it
      if (this.host !== host) return
      this.host = undefined
      host.kill()
      this.finish({ ok: false, ...why, logs: '' })
    }, this.terminateAfterMs)
  }

  /** End now, without waiting for the worker (disposed runtime, no worker can start). */
  abandon(code: 'ABORTED' | 'THREW', message: string): void {
    this.host = undefined
    clearTimeout(this.killTimer)
    this.finish({ ok: false, ...(this.cancelled ?? { code, message }), logs: '' })
  }

  onCall(message: CallMessage): void {
    if (!this.finished && !this.cancelled) this.subcalls.enqueue(message)
  }

  onDone(message: DoneMessage): void {
    this.host = undefined
    clearTimeout(this.killTimer)
    if (this.cancelled) return this.finish({ ok: false, ...this.cancelled, logs: message.logs })
    this.finish(this.verdict(message.outcome, message.logs))
  }

  /** The worker thread died under this run. */
  onLost(error: unknown): void {
    this.host = undefined
    clearTimeout(this.killTimer)
    if (this.cancelled) return this.finish({ ok: false, ...this.cancelled, logs: '' })
    const outOfMemory = (error as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
    const reason = error instanceof Error ? error.message : 'it exited'
    this.finish({
      ok: false,
      code: outOfMemory ? 'MEMORY' : 'THREW',
      message: `the code runtime worker stopped during the run: ${reason}`,
      logs: '',
    })
  }

  private verdict(outcome: WorkerOutcome, logs: string): RunOutcome {
    if (outcome.ok) return { ok: true, value: JSON.parse(outcome.json) as JsonValue, logs }
    // the worker watches the deadline itself, and may see it before the host's timer fires
    if (outcome.code === 'INTERRUPTED') return { ok: false, ...this.timedOut(), logs }
    const { code, message, line } = outcome
    return { ok: false, code, message, ...(line === undefined ? {} : { line }), logs }
  }

  private timedOut(): Cancellation {
    return { code: 'TIMEOUT', message: `the program ran past its deadline of ${this.limits.timeoutMs} ms` }
  }

  private finish(outcome: RunOutcome): void {
    if (this.finished) return
    this.finished = true
    clearTimeout(this.timer)
    clearTimeout(this.answerTimer)
    this.request.signal?.removeEventListener('abort', this.onAbort)
    this.ended.abort(new Error('the run ended'))
    this.resolve(outcome)
    this.onFinished(this)
  }
}
