/**
 * `ctx.waterfall(name, input, fallback)`: the ordinary cordis listeners of
 * `name`, composed as middleware `(input, next) => output`. Registration order
 * is call order (`prepend` puts a listener first); the last `next` calls the
 * fallback. A scoped waterfall, `ctx.waterfall(thisArg, name, ...)`, applies
 * cordis filters exactly as `ctx.emit(thisArg, ...)` does.
 *
 * The hot path stays off cordis's proxies (see `listener-list.ts`).
 */
import { Context } from 'cordis'
import { compose } from './compose.js'
import { listenerList } from './listener-list.js'

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

Context.prototype.waterfall = function (this: Context, ...args: any[]): Promise<any> {
  const thisArg = typeof args[0] === 'object' && args[0] !== null ? args.shift() : undefined
  const [name, input, fallback] = args as [string, unknown, AnyFn]
  return compose(listenerList(this, name).reachedBy(thisArg), input, fallback, thisArg === undefined ? undefined : { thisArg })
}
