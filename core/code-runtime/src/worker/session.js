// @ts-check
/** One run inside the worker, synchronous from start to verdict, since an answer or a cancellation must be handled microseconds after the host writes it (docs/decisions/2026-11-30-code-runtime.md). */
import { LogBuffer } from './logs.js'
import { compileProgram, lineFromStack, programFile } from './transpile.js'

/** promise jobs run between two looks at the deadline and the cancel word */
const jobBatch = 512

/**
 * @typedef {import('../protocol.js').RunMessage} RunMessage
 * @typedef {import('../protocol.js').WorkerOutcome} WorkerOutcome
 * @typedef {import('../protocol.js').ResultMessage} ResultMessage
 * @typedef {import('quickjs-emscripten').QuickJSHandle} QuickJSHandle
 * @typedef {import('./engine.js').Engine} Engine
 * @typedef {import('./isolate.js').Isolate} Isolate
 * @typedef {import('./link.js').Link} Link
 */

export class Session {
  /**
   * @param {Engine} engine
   * @param {RunMessage} request
   * @param {Link} link
   */
  constructor(engine, request, link) {
    this.engine = engine
    this.request = request
    this.link = link
    this.logs = new LogBuffer(request.limits.maxLogBytes)
    /** @type {Map<number, { id: number, bytes: number }>} sub-calls posted, not yet answered, by host index */
    this.pending = new Map()
    /** bytes of arguments the host holds for unanswered sub-calls */
    this.pendingBytes = 0
    this.calls = 0
    /** @type {string[]} settle entries (see prelude.js) not yet handed to the isolate */
    this.settlements = []
    /** @type {'cancelled' | 'deadline' | undefined} */
    this.stopped = undefined
    /** @type {Isolate | undefined} */
    this.isolate = undefined
  }

  /**
   * Run to a verdict. The isolate is left for `release()`, which the worker
   * calls after posting the verdict: freeing a runtime takes longer than the
   * host needs to wait.
   * @returns {{ outcome: WorkerOutcome, logs: string }}
   */
  run() {
    const outcome = this.execute()
    return { outcome, logs: this.logs.text() }
  }

  /** @returns {WorkerOutcome} */
  execute() {
    const { code, limits, tools } = this.request
    const compiled = compileProgram(code)
    if (!compiled.ok) return { ok: false, code: 'SYNTAX', message: compiled.message, line: compiled.line }
    this.engine.beginRun(limits.memoryBytes)
    try {
      this.isolate = this.engine.takeIsolate()
      this.isolate.open(tools, limits, { log: line => this.logs.append(line), shouldInterrupt: () => this.shouldInterrupt() })
      return this.drive(this.isolate, compiled.js)
    } catch (error) {
      // a failure on the host side of the FFI (the wasm stack overflowed, say)
      // may leave the instance inconsistent: never reuse it
      this.engine.broken = true
      return this.stopOutcome() ?? hostFailure(error)
    }
  }

  /**
   * @param {Isolate} isolate
   * @param {string} js
   * @returns {WorkerOutcome}
   */
  drive(isolate, js) {
    const started = isolate.start(js, programFile)
    // the wrapper's body runs only when called, so failing here means failing to compile
    if (started.error) return this.fromThrown(started.error, true)
    const promise = started.value
    try {
      for (;;) {
        if (this.settlements.length > 0) isolate.settle(`[${this.settlements.splice(0).join(',')}]`)
        const failed = this.runJobs(isolate)
        if (failed) return failed
        const stop = this.stopOutcome()
        if (stop) return stop
        if (!isolate.pending(promise)) return this.settled(isolate, promise)
        // sub-calls still unsent when the program settles are never sent: the run is over
        this.dispatch(isolate.take())
        if (this.settlements.length > 0) continue
        // no timers exist in the isolate: with no sub-call in flight, nothing can ever settle it
        if (this.pending.size === 0) {
          return { ok: false, code: 'THREW', message: 'the program awaits a promise that nothing can settle (no sub-call is in flight)' }
        }
        this.waitForHost()
      }
    } finally {
      if (promise.alive) promise.dispose()
    }
  }

  /**
   * The program's verdict, once its promise settled.
   * @param {Isolate} isolate
   * @param {QuickJSHandle} promise
   * @returns {WorkerOutcome}
   */
  settled(isolate, promise) {
    const state = isolate.vm.getPromiseState(promise)
    if (state.type === 'fulfilled') {
      return state.notAPromise ? this.fromValue(state.value) : state.value.consume(v => this.fromValue(v))
    }
    if (state.type === 'rejected') return this.fromThrown(state.error, false)
    return { ok: false, code: 'THREW', message: 'the program is still pending' }
  }

  /**
   * Run the isolate's pending jobs in batches, looking at the stop conditions
   * between batches: QuickJS polls its interrupt handler only every ten
   * thousand or so operations, which a chain of tiny promise jobs takes tens
   * of milliseconds to reach.
   * @param {Isolate} isolate
   * @returns {WorkerOutcome | undefined} a failure, if a job failed
   */
  runJobs(isolate) {
    for (;;) {
      const jobs = isolate.runJobs(jobBatch)
      if (typeof jobs !== 'number') return this.fromThrown(jobs, false)
      if (jobs < jobBatch || this.shouldInterrupt()) return undefined
    }
  }

  /**
   * Post the sub-calls the program requested (records from the prelude's
   * `take`), or refuse them: past `maxSubCalls`, over `maxValueBytes`, or when
   * the host already holds `memoryBytes` of arguments for unanswered sub-calls
   * (the isolate's cap bounds what the program holds, this what it makes the
   * host hold: without it, maxSubCalls × maxValueBytes).
   * @param {string} requests
   */
  dispatch(requests) {
    const { limits, tools, run } = this.request
    for (let pos = 0; pos < requests.length; ) {
      const comma1 = requests.indexOf(',', pos)
      const comma2 = requests.indexOf(',', comma1 + 1)
      const colon = requests.indexOf(':', comma2 + 1)
      const id = Number(requests.slice(pos, comma1))
      const tool = Number(requests.slice(comma1 + 1, comma2))
      const name = tools[tool] ?? '?'
      const end = colon + 1 + Number(requests.slice(comma2 + 1, colon))
      const json = requests.slice(colon + 1, end)
      pos = end
      const bytes = Buffer.byteLength(json)
      const refusal =
        this.calls >= limits.maxSubCalls
          ? `tools.${name}: more than ${limits.maxSubCalls} sub-calls in one run`
          : bytes > limits.maxValueBytes
            ? `tools.${name}: the arguments are ${bytes} bytes, over the limit of ${limits.maxValueBytes}`
            : this.pendingBytes + bytes > limits.memoryBytes
              ? `tools.${name}: the sub-calls in flight already hold ${this.pendingBytes} bytes of arguments`
              : undefined
      if (refusal !== undefined) {
        this.settlements.push(`[${id},2,${JSON.stringify(refusal)}]`)
        continue
      }
      const call = ++this.calls
      this.pending.set(call, { id, bytes })
      this.pendingBytes += bytes
      this.link.send(run, call, tool, json)
    }
  }

  /** Block until the host answers, cancels, or the deadline passes; keep what came. */
  waitForHost() {
    for (;;) {
      let received = false
      for (let message = this.link.receive(); message; message = this.link.receive()) {
        received = true
        this.onHostMessage(message)
      }
      if (received || this.shouldInterrupt()) return
      this.link.wait(this.request.deadline)
    }
  }

  /** @param {ResultMessage} message */
  onHostMessage(message) {
    // answers for an earlier run are dropped
    if (message.run !== this.request.run) return
    const entry = this.pending.get(message.call)
    if (entry === undefined) return
    this.pending.delete(message.call)
    this.pendingBytes -= entry.bytes
    const { id } = entry
    // the host made `json` with JSON.stringify: it embeds as is
    this.settlements.push(
      message.ok
        ? `[${id},1,${message.json}]`
        : message.limit
          ? `[${id},2,${JSON.stringify(message.message)}]`
          : `[${id},0,${JSON.stringify(message.code)},${JSON.stringify(message.message)}]`,
    )
  }

  /** @returns {boolean} */
  shouldInterrupt() {
    if (this.stopped) return true
    if (this.link.cancelled(this.request.run)) this.stopped = 'cancelled'
    else if (Date.now() >= this.request.deadline) this.stopped = 'deadline'
    return this.stopped !== undefined || this.engine.overCap()
  }

  /** @returns {WorkerOutcome | undefined} */
  stopOutcome() {
    if (this.stopped === 'cancelled') return { ok: false, code: 'INTERRUPTED', message: 'the run was cancelled' }
    if (this.stopped === 'deadline') return { ok: false, code: 'INTERRUPTED', message: 'the program passed its deadline' }
    if (this.engine.overCap()) {
      return { ok: false, code: 'MEMORY', message: `the program used more than its ${this.request.limits.memoryBytes} bytes of memory` }
    }
    return undefined
  }

  /**
   * @param {QuickJSHandle} value
   * @returns {WorkerOutcome}
   */
  fromValue(value) {
    const isolate = /** @type {Isolate} */ (this.isolate)
    const max = this.request.limits.maxValueBytes
    const encoded = isolate.encode(value, max)
    if ('error' in encoded) return this.fromThrown(encoded.error, false, 'the return value is not JSON-serializable: ')
    const bytes = 'json' in encoded ? Buffer.byteLength(encoded.json) : encoded.tooLong
    if (!('json' in encoded) || bytes > max) {
      const size = 'json' in encoded ? `${bytes}` : `at least ${bytes}`
      return { ok: false, code: 'LIMIT', message: `the return value is ${size} bytes of JSON, over the limit of ${max}` }
    }
    return this.stopOutcome() ?? { ok: true, json: encoded.json }
  }

  /**
   * @param {QuickJSHandle} thrown  consumed
   * @param {boolean} compiling
   * @param {string} [prefix]
   * @returns {WorkerOutcome}
   */
  fromThrown(thrown, compiling, prefix = '') {
    const stop = this.stopOutcome()
    if (stop) {
      thrown.dispose()
      return stop
    }
    const described = thrown.consume(h => /** @type {Isolate} */ (this.isolate).describe(h))
    const name = described.name ? `${described.name}${described.code ? ` [${described.code}]` : ''}: ` : ''
    const line = lineFromStack(this.request.code, described.stack)
    if (described.name === 'InternalError' && described.message === 'out of memory') {
      // QuickJS refused one allocation over the limit before asking for memory (setMemoryLimit)
      return { ok: false, code: 'MEMORY', message: `the program used more than its ${this.request.limits.memoryBytes} bytes of memory` }
    }
    // an uncaught limit error of the runtime (not one the program made up) ends the run as LIMIT
    const code = compiling && described.name === 'SyntaxError' ? 'SYNTAX' : described.limit ? 'LIMIT' : 'THREW'
    return { ok: false, code, message: `${prefix}${name}${described.message}`, ...(line === undefined ? {} : { line }) }
  }

  /** Free the isolate (nothing of the run survives it). */
  release() {
    this.pending.clear()
    this.settlements.length = 0
    try {
      // a broken instance is dropped whole; touching it again could abort the wasm module
      if (this.isolate && !this.engine.broken) this.isolate.dispose()
    } catch {
      this.engine.broken = true
    }
  }
}

/**
 * @param {unknown} error
 * @returns {WorkerOutcome}
 */
function hostFailure(error) {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return { ok: false, code: 'THREW', message: 'InternalError: stack overflow (the program nests too deeply)' }
  }
  return { ok: false, code: 'THREW', message: `the code runtime failed: ${error instanceof Error ? error.message : String(error)}` }
}
