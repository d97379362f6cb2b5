/**
 * `ctx.waterfall(name, input, fallback)`: the ordinary cordis listeners of
 * `name`, composed as middleware `(input, next) => output`. Registration order
 * is call order (`prepend` puts a listener first); the last `next` calls the
 * fallback. A scoped waterfall, `ctx.waterfall(thisArg, name, ...)`, applies
 * cordis filters exactly as `ctx.emit(thisArg, ...)` does.
 *
 * The hot path stays off cordis's proxies: listeners are taken from the raw
 * lifecycle, unwrapped from the reflect proxy `ctx.on` puts around them, and the
 * composed list is cached until the listener array changes.
 */
import { Context, ReflectService, symbols } from 'cordis'
import { KernelError } from './errors.js'

/** The middleware shape every waterfall listener has. */
export type WaterfallListener<I = any, O = any, N extends (...args: any[]) => any = () => Promise<O>> =
  (input: I, next: N) => O | Promise<O>

type AnyFn = (...args: any[]) => any
type Input<F> = F extends (input: infer I, ...rest: any[]) => any ? I : never
type Output<F> = F extends (...args: any[]) => infer R ? Awaited<R> : never

/** Event names whose listeners have the middleware shape `(input, next) => output`. */
export type WaterfallName = {
  [K in keyof import('cordis').Events]: import('cordis').Events[K] extends (input: any, next: AnyFn) => any ? K : never
}[keyof import('cordis').Events] & string

declare module 'cordis' {
  interface Context {
    waterfall<K extends WaterfallName>(name: K, input: Input<Events[K]>, fallback: (input: Input<Events[K]>) => Output<Events[K]> | Promise<Output<Events[K]>>): Promise<Output<Events[K]>>
    waterfall<K extends WaterfallName>(thisArg: object, name: K, input: Input<Events[K]>, fallback: (input: Input<Events[K]>) => Output<Events[K]> | Promise<Output<Events[K]>>): Promise<Output<Events[K]>>
  }
}

interface Hook {
  ctx: Context
  callback: AnyFn
  global?: boolean
}

// `ctx.on` wraps every listener in a reflect proxy whose apply trap re-traces
// `this` and each argument (~5 µs a call). Remember the original function so a
// composed chain can call it directly; the proxy is still what cordis stores,
// so removal and inspection are unchanged.
const originals = new WeakMap<AnyFn, AnyFn>()
const reflectProto = ReflectService.prototype as unknown as { bind(fn: AnyFn): AnyFn; __dshPatched?: boolean }
if (!reflectProto.__dshPatched) {
  const bind = reflectProto.bind
  reflectProto.bind = function (this: unknown, callback: AnyFn) {
    const bound = bind.call(this, callback)
    originals.set(bound, callback)
    return bound
  }
  Object.defineProperty(reflectProto, '__dshPatched', { value: true })
}

/** The function a listener was registered with (the proxy itself if unknown). */
export function unwrapListener(callback: AnyFn): AnyFn {
  return originals.get(callback) ?? callback
}

/** The function a caller passed to a service method, without the proxy cordis wrapped it in. */
export function unwrapArgument<F extends AnyFn>(fn: F): F {
  return ((fn as any)[symbols.original] as F | undefined) ?? fn
}

/** The raw (unproxied) object behind a cordis traceable. */
export function raw<T extends object>(value: T): T {
  return ((value as any)[symbols.original] as T | undefined) ?? value
}

/**
 * A cached view of one event's listeners. `current()` returns a frozen array of
 * unwrapped functions, rebuilt only when the live hook list changed (compared
 * entry by entry, so a removal followed by an addition is seen too).
 */
export class ListenerList {
  private seen: Hook[] = []
  private fns: readonly AnyFn[] = Object.freeze([])

  constructor(private hooksOf: () => Hook[] | undefined) {}

  current(): readonly AnyFn[] {
    const hooks = this.hooksOf() ?? []
    const seen = this.seen
    if (hooks.length === seen.length) {
      let same = true
      for (let i = 0; i < hooks.length; i++) {
        if (hooks[i] !== seen[i]) { same = false; break }
      }
      if (same) return this.fns
    }
    this.seen = hooks.slice()
    this.fns = Object.freeze(this.seen.map((hook) => unwrapListener(hook.callback)))
    return this.fns
  }

  /** Hooks as cordis holds them (with owning context), for inspection. */
  hooks(): readonly Hook[] {
    return this.hooksOf() ?? []
  }
}

/** Lists per event name for one lifecycle, created on first use. */
export function listenerList(ctx: Context, name: string): ListenerList {
  const lifecycle = raw(raw(ctx.root).lifecycle) as unknown as { _hooks: Record<string, Hook[]>; __dshLists?: Map<string, ListenerList> }
  let lists = lifecycle.__dshLists
  if (!lists) {
    lists = new Map()
    Object.defineProperty(lifecycle, '__dshLists', { value: lists })
  }
  let list = lists.get(name)
  if (!list) {
    list = new ListenerList(() => lifecycle._hooks[name])
    lists.set(name, list)
  }
  return list
}

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

/**
 * Run `input` through `fns` in order. Each listener gets `next(arg?)`; calling it
 * twice rejects with `NEXT_CALLED_TWICE`. `mapNext` turns the argument a
 * listener passes to `next` into the input for the rest of the chain (the
 * default passes the same input on). `observe` sees what every listener
 * settled with (a value, or a throw), including those an outer listener then
 * overrode — the tools pipeline uses it to keep decisions monotone.
 *
 * A listener that returns the very promise `next()` gave it settles with the
 * inner outcome, which is already observed and awaited through it: that common
 * case costs no extra promise.
 */
export function compose<I, O>(
  fns: readonly AnyFn[],
  thisArg: unknown,
  input: I,
  fallback: (input: I) => O | Promise<O>,
  mapNext?: (input: I, arg: unknown, index: number) => I,
  observe?: (outcome: unknown, threw: boolean) => void,
  /** tracks every inner dispatch `next()` started that its listener did not hand back */
  started?: Inflight,
): Promise<O> {
  const observed = observe && {
    ok: (value: O) => { observe(value, false); return value },
    failed: (error: unknown): never => { observe(error, true); throw error },
  }
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
    if (inner !== undefined && out === inner && (index < last || !observed)) return out
    if (inner && started) started.track(inner)
    out = Promise.resolve(out)
    return observed ? out.then(observed.ok, observed.failed) : out
  }
  return dispatch(0, input)
}

/** Apply cordis filters (`thisArg[Context.filter]`) to the hooks of one event. */
function filtered(list: ListenerList, thisArg: any): readonly AnyFn[] {
  const filter = thisArg?.[Context.filter]
  if (typeof filter !== 'function') return list.current()
  return list.hooks()
    .filter((hook) => hook.global || filter.call(thisArg, hook.ctx))
    .map((hook) => unwrapListener(hook.callback))
}

Context.prototype.waterfall = function (this: Context, ...args: any[]): Promise<any> {
  const thisArg = typeof args[0] === 'object' && args[0] !== null ? args.shift() : undefined
  const [name, input, fallback] = args as [string, unknown, AnyFn]
  const fns = filtered(listenerList(this, name), thisArg)
  return compose(fns, thisArg, input, fallback)
}
