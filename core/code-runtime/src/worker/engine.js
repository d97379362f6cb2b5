// @ts-check
/** One QuickJS instance per worker, kept warm, its memory capped at the linear memory since this wasm build's setMemoryLimit counts blocks, not bytes (docs/decisions/2026-11-30-code-runtime.md). */
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten'
import { Isolate } from './isolate.js'

const pageBytes = 65536

/**
 * QuickJS asserts, when a runtime is freed, that no object is left; an
 * interrupt inside a promise job can leave one, and the wasm module then
 * aborts. The worker expects that (it replaces the instance), so the abort
 * message is not printed; anything else emscripten prints still is.
 */
const emscriptenModule = {
  /** @param {string} text */
  printErr: text => {
    if (!text.startsWith('Aborted(')) console.error(text)
  },
}
// `printErr` is an emscripten option the loader passes through but does not declare
const variant = newVariant(RELEASE_SYNC, {
  emscriptenModule: /** @type {import('quickjs-emscripten').CustomizeVariantOptions['emscriptenModule']} */ (
    /** @type {unknown} */ (emscriptenModule)
  ),
})

/** @typedef {ReturnType<import('quickjs-emscripten').QuickJSWASMModule['getWasmMemory']>} WasmMemory */

export class Engine {
  constructor() {
    /** @type {import('quickjs-emscripten').QuickJSWASMModule | undefined} */
    this.module = undefined
    /** @type {WasmMemory | undefined} */
    this.memory = undefined
    this.baseBytes = 0
    this.capBytes = Number.POSITIVE_INFINITY
    this.capHit = false
    this.broken = false
    /** @type {Isolate | undefined} the next run's isolate, made while idle */
    this.spare = undefined
  }

  async load() {
    this.module = undefined
    this.memory = undefined
    this.spare = undefined
    const module = await newQuickJSWASMModuleFromVariant(variant)
    const memory = module.getWasmMemory()
    const grow = memory.grow
    const engine = this
    // the emscripten glue grows memory through this method and treats a throw as "no memory"
    Object.defineProperty(memory, 'grow', {
      configurable: true,
      value: /** @param {number} pages */ function (pages) {
        if (memory.buffer.byteLength + pages * pageBytes > engine.capBytes) {
          engine.capHit = true
          throw new RangeError('the isolate reached its memory cap')
        }
        return grow.call(memory, pages)
      },
    })
    this.module = module
    this.memory = memory
    this.baseBytes = memory.buffer.byteLength
    this.broken = false
  }

  /** @returns {import('quickjs-emscripten').QuickJSWASMModule} */
  get quickjs() {
    if (!this.module) throw new Error('the QuickJS instance is not loaded')
    return this.module
  }

  /** @returns {Isolate} a fresh isolate for a run: the spare if there is one */
  takeIsolate() {
    const isolate = this.spare ?? new Isolate(this.quickjs)
    this.spare = undefined
    return isolate
  }

  /** Make the next run's isolate now, while nothing waits on this worker. */
  prepare() {
    if (this.spare || !this.module || this.broken) return
    try {
      this.spare = new Isolate(this.module)
    } catch {
      this.broken = true
    }
  }

  /** @param {number} memoryBytes */
  beginRun(memoryBytes) {
    this.capBytes = this.baseBytes + memoryBytes
    this.capHit = false
  }

  /** @returns {boolean} whether this run reached its memory cap */
  overCap() {
    return this.capHit || (this.memory !== undefined && this.memory.buffer.byteLength > this.capBytes)
  }

  /** @returns {boolean} whether the instance must be replaced before the next run */
  needsRecycle() {
    return this.broken || this.memory === undefined || this.memory.buffer.byteLength > this.baseBytes
  }
}
