/**
 * `CodeRuntime`: runs untrusted TypeScript programs in QuickJS isolates inside
 * a small pool of pre-started worker threads, so a program never blocks the
 * host's event loop. Runs wait in order for a free worker; each gets a fresh
 * isolate. Outcomes are data: only a malformed request (a host programming
 * error) throws.
 */
import { defaultCodeLimits, resolveLimits, type CodeLimits } from './limits.js'
import { PoolWorker } from './pool-worker.js'
import { activityBytes, activitySlots } from './protocol.js'
import { HostRun } from './run.js'
import type { CodeRuntimeOptions, RunOutcome, RunRequest, SubCallBridge } from './types.js'

/** a host warm-up run (see `warmUpRuns`): sequential sub-calls, answered with their arguments */
const warmUpProgram = 'for (let i = 0; i < 50; i++) await tools.echo({ i })'
const warmUpBridge: SubCallBridge = async (_name, args) => ({ ok: true, value: args })
/** how long the pool must have had no run in progress to count as rested (see pool-worker.ts) */
const restedMs = 5

export class CodeRuntime {
  /** the limits every run starts from */
  readonly limits: Readonly<CodeLimits>
  private readonly workers: PoolWorker[]
  private readonly queue: HostRun[] = []
  private readonly terminateAfterMs: number
  private nextRun = 1
  private disposing: Promise<void> | undefined
  private warmingUp = false
  /** what the workers share of the pool's runs (`activitySlots`): the runs in progress, as their threads see them */
  private readonly activity: Int32Array
  /** when the last run ended (performance.now()) */
  private lastRunEnd = 0
  /** host warm-up runs still to do (see `CodeRuntimeOptions.warmUpRuns`) */
  private warmUpRunsLeft: number

  constructor(options: CodeRuntimeOptions = {}) {
    this.limits = Object.freeze(resolveLimits(defaultCodeLimits, options.limits))
    const count = options.workers ?? 2
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`workers must be a positive integer, got ${String(count)}`)
    this.terminateAfterMs = options.terminateAfterMs ?? 1000
    if (!(this.terminateAfterMs >= 0 && this.terminateAfterMs <= 0x7fff_ffff)) {
      throw new RangeError(`terminateAfterMs must be a number of milliseconds, got ${String(this.terminateAfterMs)}`)
    }
    this.warmUpRunsLeft = options.warmUpRuns ?? 0
    if (!Number.isSafeInteger(this.warmUpRunsLeft) || this.warmUpRunsLeft < 0) {
      throw new RangeError(`warmUpRuns must be a whole number, got ${String(options.warmUpRuns)}`)
    }
    const events = { idle: () => this.schedule(), failed: () => this.schedule() }
    const activity = (this.activity = new Int32Array(new SharedArrayBuffer(activityBytes)))
    this.workers = Array.from({ length: count }, () => new PoolWorker(events, { activity }))
  }

  /** Settles once every worker has started (runs may be submitted before: they wait). */
  async ready(): Promise<void> {
    await Promise.all(this.workers.map(worker => worker.warm))
  }

  run(request: RunRequest): Promise<RunOutcome> {
    return this.submit(request, false)
  }

  private submit(request: RunRequest, background: boolean): Promise<RunOutcome> {
    checkRequest(request)
    const limits = resolveLimits(this.limits, request.limits)
    if (this.disposing) return failed('ABORTED', 'the code runtime was disposed')
    if (request.signal?.aborted) return failed('ABORTED', 'the caller aborted the run')
    const codeBytes = request.code.length * 3 > limits.maxValueBytes ? Buffer.byteLength(request.code) : 0
    if (codeBytes > limits.maxValueBytes) {
      return failed('LIMIT', `the program is ${codeBytes} bytes, over the limit of ${limits.maxValueBytes}`)
    }
    // run ids go into an Int32Array slot (the cancel word): keep them positive int32
    const id = this.nextRun
    this.nextRun = (this.nextRun % 0x7fff_ffff) + 1
    const run = new HostRun(id, request, limits, this.terminateAfterMs, finished => this.finished(finished), background)
    this.queue.push(run)
    this.schedule()
    return run.done
  }

  /** Terminate every worker; runs in flight or waiting end `ABORTED`. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      for (const run of this.queue.splice(0)) run.abandon('ABORTED', 'the code runtime was disposed')
      await Promise.all(this.workers.map(worker => worker.close()))
    })()
    return this.disposing
  }

  /** Host warm-up runs not yet done. */
  get warmUpPending(): number {
    return this.warmUpRunsLeft + (this.warmingUp ? 1 : 0)
  }

  private schedule(): void {
    while (this.queue.length > 0 && !this.disposing) {
      let worker: PoolWorker | undefined
      for (const w of this.workers) if (w.state === 'idle' && (!worker || w.idleSince < worker.idleSince)) worker = w
      if (!worker) {
        if (this.workers.every(w => w.state === 'failed')) this.failAll()
        return
      }
      const rested = Atomics.load(this.activity, activitySlots.running) === 0 && performance.now() - this.lastRunEnd > restedMs
      worker.start(this.queue.shift()!, rested)
    }
    this.warmUpWhenIdle()
  }

  /** Start the next host warm-up run, if the whole pool is idle and one is left. */
  private warmUpWhenIdle(): void {
    if (this.warmUpRunsLeft <= 0 || this.warmingUp || this.disposing || this.queue.length > 0) return
    if (!this.workers.every(w => w.state === 'idle')) return
    this.warmUpRunsLeft--
    this.warmingUp = true
    // its outcome is of no interest: a run that fails (a worker that died, say) only ends the warm-up sooner
    void this.submit({ code: warmUpProgram, tools: ['echo'], call: warmUpBridge }, true).then(outcome => {
      this.warmingUp = false
      if (!outcome.ok) this.warmUpRunsLeft = 0
      this.schedule()
    })
  }

  private finished(run: HostRun): void {
    const index = this.queue.indexOf(run)
    if (index !== -1) this.queue.splice(index, 1)
    this.lastRunEnd = performance.now()
  }

  private failAll(): void {
    const reason = this.workers.map(w => w.failure).find(Boolean) ?? 'unknown error'
    for (const run of this.queue.splice(0)) run.abandon('THREW', `the code runtime cannot start a worker: ${reason}`)
  }
}

function failed(code: 'ABORTED' | 'LIMIT', message: string): Promise<RunOutcome> {
  return Promise.resolve({ ok: false, code, message, logs: '' })
}

function checkRequest(request: RunRequest): void {
  if (typeof request?.code !== 'string') throw new TypeError('run(): code must be a string')
  if (typeof request.call !== 'function') throw new TypeError('run(): call must be a function')
  if (!Array.isArray(request.tools) || !request.tools.every(name => typeof name === 'string')) {
    throw new TypeError('run(): tools must be an array of strings')
  }
}
