/**
 * Middleware composition: run an input through listeners `(input, next) =>
 * output` in order, each `next` dispatching the rest; what `ctx.waterfall` and
 * the tools pipeline's gates are built on.
 */
import { KernelError } from './errors.js'

type AnyFn = (...args: any[]) => any

/**
 * Inner dispatches a chain started whose listeners did not hand them back:
 * `settled()` waits for the ones still running (none, usually: a listener that
 * wraps `next()` settles after it), so no outer listener outruns an inner one.
 */
export class Inflight {
  private count = 0
  private waiters?: Array<() => void>

  track(dispatch: Promise<unknown>): void {
    this.count++
    const done = () => this.done()
    dispatch.then(done, done)
  }

  /** Undefined when nothing is running; else a promise that resolves once all have settled. */
  settled(): Promise<void> | undefined {
    if (!this.count) return undefined
    return new Promise<void>((resolve) => (this.waiters ??= []).push(resolve))
  }

  private done(): void {
    if (--this.count || !this.waiters) return
    const waiters = this.waiters
    this.waiters = undefined
    for (const resolve of waiters) resolve()
  }
}

/** How `compose` runs a chain beyond its listeners, input and fallback. */
export interface ComposeOptions<I> {
  /** `this` of every listener */
  thisArg?: unknown
  /** turns the argument a listener passes to `next` into the input for the rest of the chain (default: the same input on) */
  mapNext?: (input: I, arg: unknown, index: number) => I
  /**
   * sees what every listener settled with (a value, or a throw), including those an outer
   * listener then overrode — the tools pipeline uses it to keep decisions monotone
   */
  observe?: (outcome: unknown, threw: boolean, index: number) => void
  /** tracks every inner dispatch `next()` started that its listener did not hand back */
  started?: Inflight
}

const NO_OPTIONS: ComposeOptions<any> = Object.freeze({})

/**
 * Run `input` through `fns` in order. Each listener gets `next(arg?)`; calling it
 * twice rejects with `NEXT_CALLED_TWICE`; the last `next` calls `fallback`.
 *
 * A listener that returns the very promise `next()` gave it settles with the
 * inner outcome, which is already observed and awaited through it: that common
 * case costs no extra promise.
 */
export function compose<I, O>(
  fns: readonly AnyFn[],
  input: I,
  fallback: (input: I) => O | Promise<O>,
  options: ComposeOptions<I> = NO_OPTIONS,
): Promise<O> {
  const { thisArg, mapNext, observe, started } = options
  const last = fns.length - 1
  const dispatch = (index: number, current: I): Promise<O> => {
    if (index > last) {
      try {
        return Promise.resolve(fallback(current))
      } catch (error) {
        return Promise.reject(error)
      }
    }
    let inner: Promise<O> | undefined
    let called = false
    let returned = false
    const next = (arg?: unknown) => {
      if (called) {
        return Promise.reject(new KernelError('NEXT_CALLED_TWICE', `listener #${index + 1} called next() more than once`))
      }
      called = true
      inner = dispatch(index + 1, mapNext && arg !== undefined ? mapNext(current, arg, index) : current)
      // the listener has already returned: nobody chains on this dispatch
      if (started && returned) started.track(inner)
      return inner
    }
    let out: Promise<O>
    try {
      out = fns[index].call(thisArg, current, next)
    } catch (error) {
      out = Promise.reject(error)
    }
    returned = true
    // handed back as is: its outcome is the inner one (observed there, unless it is the fallback's)
    if (inner !== undefined && out === inner && (index < last || !observe)) return out
    if (inner && started) started.track(inner)
    out = Promise.resolve(out)
    // the observer is told which listener settled with what (the pipeline names who asked for approval)
    return observe ? out.then((value) => { observe(value, false, index); return value }, (error) => { observe(error, true, index); throw error }) : out
  }
  return dispatch(0, input)
}
