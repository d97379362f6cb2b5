// @ts-check
/**
 * The calls a sub-call makes into QuickJS, straight through the FFI of
 * quickjs-emscripten. Every sub-call crosses into the isolate three times
 * (settle the answers, run the promise jobs, take the next requests) and looks
 * at the program's promise once; through the library's public API each of those
 * allocates lifetimes, a pointer array and C strings, about a third of the
 * worker's time per sub-call. Here one scratch block is allocated per isolate
 * and reused.
 *
 * This reads fields the library keeps to itself (`ffi`, `module`, `ctx`, `rt`,
 * `memory`), so the package version is pinned exactly; `DirectCalls` checks
 * they are there when it is made, and a library that moved them fails the
 * worker's start (every run then fails) instead of misbehaving.
 */

/**
 * @typedef {import('quickjs-emscripten').QuickJSContext} QuickJSContext
 * @typedef {import('quickjs-emscripten').QuickJSRuntime} QuickJSRuntime
 * @typedef {import('quickjs-emscripten').QuickJSHandle} QuickJSHandle
 */

/**
 * @typedef {object} Emscripten  the parts of the emscripten module used here
 * @property {(bytes: number) => number} _malloc
 * @property {(pointer: number) => void} _free
 * @property {Uint8Array} HEAPU8  replaced when the memory grows: read it afresh
 * @property {(text: string) => number} lengthBytesUTF8
 * @property {(text: string, pointer: number, maxBytes: number) => number} stringToUTF8
 * @property {(pointer: number) => string} UTF8ToString
 */

/**
 * @typedef {object} Ffi  the FFI functions used here (their C side: quickjs-ffi-types)
 * @property {(ctx: number, fn: number, self: number, argc: number, argv: number) => number} QTS_Call
 * @property {(ctx: number, value: number) => number} QTS_ResolveException
 * @property {(ctx: number, value: number) => void} QTS_FreeValuePointer
 * @property {(rt: number, value: number) => void} QTS_FreeValuePointerRuntime
 * @property {(ctx: number, text: number) => number} QTS_NewString
 * @property {(ctx: number, value: number) => number} QTS_GetString
 * @property {(ctx: number, text: number) => void} QTS_FreeCString
 * @property {(rt: number, max: number, ctxOut: number) => number} QTS_ExecutePendingJob
 * @property {(ctx: number, value: number) => number} QTS_Typeof
 * @property {(ctx: number, value: number) => number} QTS_GetFloat64
 * @property {(ctx: number, promise: number) => number} QTS_PromiseState
 */

/** QuickJS promise states (JSPromiseStateEnum); below zero: not a promise */
export const promiseState = { pending: 0, fulfilled: 1, rejected: 2 }

export class DirectCalls {
  /**
   * @param {QuickJSContext} vm
   * @param {QuickJSRuntime} rt
   */
  constructor(vm, rt) {
    const internals = /** @type {{ ffi?: Ffi, module?: Emscripten, ctx?: { value?: number }, memory?: { heapValueHandle?: (p: number) => QuickJSHandle } }} */ (
      /** @type {unknown} */ (vm)
    )
    const runtime = /** @type {{ rt?: { value?: number } }} */ (/** @type {unknown} */ (rt))
    const { ffi, module, ctx, memory } = internals
    const rtPointer = runtime.rt?.value
    if (!ffi || !module || typeof ctx?.value !== 'number' || typeof rtPointer !== 'number' || typeof memory?.heapValueHandle !== 'function') {
      throw new Error('quickjs-emscripten changed its internals: the code runtime needs the version it pins')
    }
    this.ffi = ffi
    this.module = module
    this.ctx = ctx.value
    this.rt = rtPointer
    /** @type {(pointer: number) => QuickJSHandle} a handle that owns a value pointer */
    this.handle = pointer => /** @type {NonNullable<typeof memory.heapValueHandle>} */ (memory.heapValueHandle).call(memory, pointer)
    this.undefined = vm.undefined.value
    // argv[0] of a one-argument call, and the context pointer ExecutePendingJob writes
    this.scratch = module._malloc(8)
    if (this.scratch === 0) throw new Error('no memory for the isolate')
    this.view = new DataView(module.HEAPU8.buffer)
  }

  /** a view of the wasm memory, made again after the memory grew */
  memory() {
    const buffer = this.module.HEAPU8.buffer
    if (this.view.buffer !== buffer) this.view = new DataView(buffer)
    return this.view
  }

  /**
   * @param {number} pointer
   * @param {number} value
   */
  writeInt32(pointer, value) {
    this.memory().setInt32(pointer, value, true)
  }

  /** @param {number} pointer */
  readInt32(pointer) {
    return this.memory().getInt32(pointer, true)
  }

  /**
   * Call `fn` with no argument; its result as a string.
   * @param {QuickJSHandle} fn
   * @returns {string | undefined} undefined when it threw (interrupted)
   */
  callForString(fn) {
    const { ffi, ctx } = this
    const result = ffi.QTS_Call(ctx, fn.value, this.undefined, 0, 0)
    if (this.failed(result)) return undefined
    const chars = ffi.QTS_GetString(ctx, result)
    const text = this.module.UTF8ToString(chars)
    ffi.QTS_FreeCString(ctx, chars)
    ffi.QTS_FreeValuePointer(ctx, result)
    return text
  }

  /**
   * Call `fn` with one string argument, ignoring what it returns.
   * @param {QuickJSHandle} fn
   * @param {string} text
   * @returns {boolean} false when it threw (interrupted) or memory ran out
   */
  callWithString(fn, text) {
    const { ffi, ctx, module } = this
    const bytes = module.lengthBytesUTF8(text) + 1
    const chars = module._malloc(bytes)
    if (chars === 0) return false
    module.stringToUTF8(text, chars, bytes)
    const arg = ffi.QTS_NewString(ctx, chars)
    module._free(chars)
    this.writeInt32(this.scratch, arg)
    const result = ffi.QTS_Call(ctx, fn.value, this.undefined, 1, this.scratch)
    ffi.QTS_FreeValuePointer(ctx, arg)
    if (this.failed(result)) return false
    ffi.QTS_FreeValuePointer(ctx, result)
    return true
  }

  /**
   * Run up to `max` promise jobs.
   * @param {number} max
   * @returns {number | QuickJSHandle} how many ran, or what a job threw (uncatchable: interrupted, out of memory)
   */
  executeJobs(max) {
    const { ffi } = this
    const out = this.scratch + 4
    this.writeInt32(out, 0)
    const value = ffi.QTS_ExecutePendingJob(this.rt, max, out)
    const ctx = this.readInt32(out)
    if (ctx === 0) {
      ffi.QTS_FreeValuePointerRuntime(this.rt, value)
      return 0
    }
    // the count, or the exception itself (not an exception marker): tell them apart by type
    const type = ffi.QTS_Typeof(ctx, value)
    const isNumber = this.module.UTF8ToString(type) === 'number'
    this.module._free(type)
    if (!isNumber) return this.handle(value)
    const count = ffi.QTS_GetFloat64(ctx, value)
    ffi.QTS_FreeValuePointer(ctx, value)
    return count
  }

  /**
   * @param {QuickJSHandle} promise
   * @returns {number} a `promiseState` value, below zero for a value that is not a promise
   */
  promiseState(promise) {
    return this.ffi.QTS_PromiseState(this.ctx, promise.value)
  }

  /**
   * Whether a call's result is an exception; if so, both are freed.
   * @param {number} result
   */
  failed(result) {
    const error = this.ffi.QTS_ResolveException(this.ctx, result)
    if (error === 0) return false
    this.ffi.QTS_FreeValuePointer(this.ctx, error)
    this.ffi.QTS_FreeValuePointer(this.ctx, result)
    return true
  }

  dispose() {
    this.module._free(this.scratch)
  }
}
