// @ts-check
/**
 * A fresh QuickJS runtime and context for one run, with the prelude installed
 * and the handles the worker needs to talk to it. Nothing outlives `dispose()`:
 * no state can leak from one run into the next.
 *
 * No module loader is set, so `import()` rejects; no std/os module exists in
 * this build, so the context holds standard ECMAScript, `tools` and `console`
 * and nothing else.
 */
import { preludeSource } from './prelude.js'

/**
 * QuickJS's own stack limit, measured by the wasm shadow stack. The wasm frames
 * themselves use the worker thread's native stack (8 MiB, see pool-worker.ts):
 * at this size QuickJS reports "stack overflow" well before V8 would, even in
 * the C recursions (JSON, Proxy chains) where native frames are largest.
 */
export const maxStackBytes = 384 * 1024

/**
 * @typedef {import('quickjs-emscripten').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten').QuickJSRuntime} QuickJSRuntime
 * @typedef {import('quickjs-emscripten').QuickJSHandle} QuickJSHandle
 * @typedef {import('quickjs-emscripten').QuickJSWASMModule} QuickJSWASMModule
 * @typedef {import('../limits.js').CodeLimits} CodeLimits
 *
 * @typedef {object} IsolateHost
 * @property {(tool: number, json: string) => QuickJSHandle | { error: QuickJSHandle }} call
 *   a `tools.<name>(args)` call: a promise handle, or an error to throw
 * @property {(line: string) => boolean} log  append a console line; `true` once the log is full
 * @property {() => boolean} shouldInterrupt  polled by QuickJS while the program runs
 */

export class Isolate {
  /**
   * @param {QuickJSWASMModule} module
   * @param {readonly string[]} tools
   * @param {CodeLimits} limits
   * @param {IsolateHost} host
   */
  constructor(module, tools, limits, host) {
    /** @type {QuickJSHandle[]} */
    this.owned = []
    this.rt = module.newRuntime()
    this.rt.setMemoryLimit(limits.memoryBytes)
    this.rt.setMaxStackSize(maxStackBytes)
    this.rt.setInterruptHandler(host.shouldInterrupt)
    /** @type {QuickJSContext} */
    this.vm = this.rt.newContext()
    try {
      const helpers = this.install(tools, limits, host)
      this.encodeFn = this.own(this.vm.getProp(helpers, 'encode'))
      this.describeFn = this.own(this.vm.getProp(helpers, 'describe'))
      this.parseFn = this.own(this.vm.getProp(helpers, 'parse'))
    } catch (error) {
      this.dispose()
      throw error
    }
  }

  /**
   * Evaluate the prelude with the host functions; returns its helpers object.
   * @param {readonly string[]} tools
   * @param {CodeLimits} limits
   * @param {IsolateHost} host
   * @returns {QuickJSHandle}
   */
  install(tools, limits, host) {
    const vm = this.vm

    const hostCall = this.own(vm.newFunction('call', (tool, json) => host.call(vm.getNumber(tool), vm.getString(json))))
    const hostLog = this.own(vm.newFunction('log', line => (host.log(vm.getString(line)) ? vm.true : vm.false)))
    const names = this.own(vm.newArray())
    tools.forEach((name, i) => vm.newString(name).consume(h => vm.setProp(names, i, h)))
    const prelude = this.own(vm.unwrapResult(vm.evalCode(preludeSource, 'prelude.js', { strict: true })))
    return this.own(
      vm.unwrapResult(
        vm.callFunction(
          prelude,
          vm.undefined,
          hostCall,
          hostLog,
          names,
          this.own(vm.newNumber(limits.maxValueBytes)),
          this.own(vm.newNumber(limits.maxLogBytes)),
        ),
      ),
    )
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
   * Compile and start the program; its first synchronous part runs now.
   * @param {string} js
   * @param {string} file
   */
  start(js, file) {
    return this.vm.evalCode(js, file)
  }

  /**
   * The return value as JSON text, or a description of why it has none.
   * @param {QuickJSHandle} value
   * @param {number} maxChars
   * @returns {{ json: string } | { tooLong: number } | { error: QuickJSHandle }}
   */
  encode(value, maxChars) {
    const result = this.vm.callFunction(this.encodeFn, this.vm.undefined, value)
    if (result.error) return { error: result.error }
    return result.value.consume(json => {
      // look at the length before copying the text out of the isolate
      const length = this.vm.getProp(json, 'length').consume(n => this.vm.getNumber(n))
      return length > maxChars ? { tooLong: length } : { json: this.vm.getString(json) }
    })
  }

  /**
   * What a thrown value says about itself, read inside the isolate.
   * @param {QuickJSHandle} thrown
   * @returns {{ name?: string, message: string, code?: string, stack?: string }}
   */
  describe(thrown) {
    const result = this.vm.callFunction(this.describeFn, this.vm.undefined, thrown)
    if (result.error) {
      result.error.dispose()
      return { message: 'the program threw a value that cannot be printed' }
    }
    return JSON.parse(result.value.consume(h => this.vm.getString(h)))
  }

  /**
   * A fresh value parsed from JSON text inside the isolate: a sub-call result
   * never shares an object with the host, and `__proto__` keys stay plain data.
   * @param {string} json
   */
  parse(json) {
    return this.vm.newString(json).consume(h => this.vm.callFunction(this.parseFn, this.vm.undefined, h))
  }

  /**
   * An `Error` whose `code` and `message` are the host's.
   * @param {string} code
   * @param {string} message
   * @returns {QuickJSHandle}
   */
  codedError(code, message) {
    const error = this.vm.newError({ name: 'Error', message })
    this.vm.newString(code).consume(h => this.vm.setProp(error, 'code', h))
    return error
  }

  dispose() {
    for (const handle of this.owned) if (handle.alive) handle.dispose()
    this.owned.length = 0
    if (this.vm.alive) this.vm.dispose()
    if (this.rt.alive) this.rt.dispose()
  }
}
