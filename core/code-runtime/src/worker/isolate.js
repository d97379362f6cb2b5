// @ts-check
/**
 * A fresh QuickJS runtime and context for one run. It is made ahead of time
 * (runtime, context and prelude cost about a millisecond, which the worker
 * spends while idle) and opened for its run with the run's tools and limits.
 * Nothing outlives `dispose()`: no state can leak from one run into the next.
 *
 * No module loader is set, so `import()` rejects; this build has no std/os
 * module, so the context holds standard ECMAScript, `tools` and `console`.
 */
import { DirectCalls, promiseState } from './direct.js'
import { preludeSource, reportingSource } from './prelude.js'

/**
 * QuickJS's own stack limit, measured on the wasm shadow stack. The wasm frames
 * themselves use the worker thread's native stack (8 MiB, see pool-worker.ts):
 * at this size QuickJS reports "stack overflow" well before V8 would, even in
 * the C recursions (JSON, Proxy chains) where native frames are largest.
 */
export const maxStackBytes = 384 * 1024

/**
 * @typedef {import('quickjs-emscripten').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten').QuickJSHandle} QuickJSHandle
 * @typedef {import('quickjs-emscripten').QuickJSWASMModule} QuickJSWASMModule
 * @typedef {import('../limits.js').CodeLimits} CodeLimits
 *
 * @typedef {object} IsolateHost
 * @property {(line: string) => boolean} log  append a console line; `true` once the log is full
 * @property {() => boolean} shouldInterrupt  polled by QuickJS while the program runs
 */

export class Isolate {
  /** @param {QuickJSWASMModule} module */
  constructor(module) {
    /** @type {QuickJSHandle[]} */
    this.owned = []
    /** @type {(line: string) => boolean} where console lines go during the run */
    this.log = () => true
    this.maxLogChars = 0
    /** @type {QuickJSHandle[] | undefined} format, describe: compiled on first use */
    this.reporting = undefined
    /** @type {DirectCalls | undefined} the per-sub-call calls, through the FFI */
    this.direct = undefined
    this.rt = module.newRuntime()
    this.rt.setMaxStackSize(maxStackBytes)
    /** @type {QuickJSContext} */
    this.vm = this.rt.newContext()
    try {
      const vm = this.vm
      // strip: no debug info for the prelude (a fifth less compile time; its own lines are never reported)
      const setup = this.own(vm.unwrapResult(vm.evalCode(preludeSource, 'prelude.js', { strict: true, strip: true })))
      const hostLog = this.own(vm.newFunction('log', values => (this.onLog(values) ? vm.true : vm.false)))
      const helpers = this.own(vm.unwrapResult(vm.callFunction(setup, vm.undefined, hostLog)))
      /** @type {QuickJSHandle[]} install, take, settle, encode, intrinsics */
      this.helpers = [0, 1, 2, 3, 4].map(i => this.own(vm.getProp(helpers, i)))
      this.direct = new DirectCalls(vm, this.rt)
    } catch (error) {
      this.dispose()
      throw error
    }
  }

  /**
   * Install `tools` for this run and apply its limits.
   * @param {readonly string[]} tools
   * @param {CodeLimits} limits
   * @param {IsolateHost} host
   */
  open(tools, limits, host) {
    const vm = this.vm
    this.rt.setMemoryLimit(limits.memoryBytes)
    this.rt.setInterruptHandler(host.shouldInterrupt)
    this.log = host.log
    this.maxLogChars = limits.maxLogBytes
    const args = [vm.newString(JSON.stringify(tools)), vm.newNumber(limits.maxValueBytes)]
    try {
      vm.unwrapResult(vm.callFunction(this.helper(0), vm.undefined, args)).dispose()
    } finally {
      for (const arg of args) arg.dispose()
    }
  }

  /**
   * @param {number} index
   * @returns {QuickJSHandle}
   */
  helper(index) {
    return /** @type {QuickJSHandle} */ (this.helpers[index])
  }

  /**
   * @template {QuickJSHandle} T
   * @param {T} handle
   * @returns {T}
   */
  own(handle) {
    this.owned.push(handle)
    return handle
  }

  /**
   * Compile and start the program; its first synchronous part runs now. As a
   * script (never sniffed as a module), in strict mode, as TypeScript is.
   * @param {string} js
   * @param {string} file
   */
  start(js, file) {
    return this.vm.evalCode(js, file, { type: 'global', strict: true })
  }

  /** @returns {string} the sub-calls requested since the last take (see prelude.js); '' when interrupted */
  take() {
    return this.requireDirect().callForString(this.helper(1)) ?? ''
  }

  /**
   * Settle sub-call promises (see prelude.js); fails only when interrupted or out of memory.
   * @param {string} json
   */
  settle(json) {
    this.requireDirect().callWithString(this.helper(2), json)
  }

  /**
   * Run up to `max` promise jobs.
   * @param {number} max
   * @returns {number | QuickJSHandle} how many ran, or what a job threw (uncatchable: interrupted, out of memory)
   */
  runJobs(max) {
    return this.requireDirect().executeJobs(max)
  }

  /**
   * @param {QuickJSHandle} promise
   * @returns {boolean} whether the promise is still pending
   */
  pending(promise) {
    return this.requireDirect().promiseState(promise) === promiseState.pending
  }

  requireDirect() {
    if (!this.direct) throw new Error('the isolate was disposed')
    return this.direct
  }

  /**
   * The return value as JSON text, or why it has none.
   * @param {QuickJSHandle} value
   * @param {number} maxChars
   * @returns {{ json: string } | { tooLong: number } | { error: QuickJSHandle }}
   */
  encode(value, maxChars) {
    const result = this.vm.callFunction(this.helper(3), this.vm.undefined, value)
    if (result.error) return { error: result.error }
    return result.value.consume(json => {
      // look at the length before copying the text out of the isolate
      const length = this.vm.getProp(json, 'length').consume(n => this.vm.getNumber(n))
      return length > maxChars ? { tooLong: length } : { json: this.vm.getString(json) }
    })
  }

  /**
   * @param {QuickJSHandle} thrown
   * @returns {{ name?: string, message: string, code?: string, stack?: string, limit?: boolean }}
   */
  describe(thrown) {
    const described = this.report(1, thrown)
    return described === undefined ? { message: 'the program threw a value that cannot be printed' } : JSON.parse(described)
  }

  /**
   * A `console.*` call: format its values inside the isolate, hand the line on.
   * @param {QuickJSHandle} values
   * @returns {boolean} whether the log is full
   */
  onLog(values) {
    const line = this.report(0, values, this.vm.newNumber(this.maxLogChars))
    return line === undefined ? false : this.log(line)
  }

  /**
   * Call a reporting helper (0: format, 1: describe), compiling them on first use.
   * @param {number} index
   * @param {QuickJSHandle[]} args  the last ones are disposed here
   * @returns {string | undefined} undefined when the helper failed (interrupted, say)
   */
  report(index, ...args) {
    const vm = this.vm
    try {
      if (!this.reporting) {
        const compiled = vm.evalCode(reportingSource, 'reporting.js', { strict: true, strip: true })
        if (compiled.error) return compiled.error.consume(() => undefined)
        const intrinsics = [0, 1, 2, 3].map(i => vm.getProp(this.helper(4), i))
        const made = compiled.value.consume(factory => vm.callFunction(factory, vm.undefined, intrinsics))
        for (const handle of intrinsics) handle.dispose()
        if (made.error) return made.error.consume(() => undefined)
        this.reporting = made.value.consume(list => [0, 1].map(i => this.own(vm.getProp(list, i))))
      }
      const result = vm.callFunction(/** @type {QuickJSHandle} */ (this.reporting[index]), vm.undefined, args)
      if (result.error) return result.error.consume(() => undefined)
      return result.value.consume(h => vm.getString(h))
    } finally {
      for (const arg of args.slice(1)) arg.dispose()
    }
  }

  dispose() {
    this.direct?.dispose()
    this.direct = undefined
    for (const handle of this.owned) if (handle.alive) handle.dispose()
    this.owned.length = 0
    if (this.vm.alive) this.vm.dispose()
    if (this.rt.alive) this.rt.dispose()
  }
}
