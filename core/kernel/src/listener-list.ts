/**
 * Cached views of one event's listeners, kept off cordis's proxies: the hot
 * path calls the unwrapped functions, rebuilt only when the hook list changes.
 */
import type { Context } from 'cordis'
import { filterHooks, hookReader, lifecycleOf, unwrapListener, type Hook } from './cordis-internals.js'

type AnyFn = (...args: any[]) => any

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

  /** The listeners a scoped dispatch with `thisArg` reaches (all of them, unscoped), unwrapped. */
  reachedBy(thisArg: unknown): readonly AnyFn[] {
    const hooks = this.hooks()
    const reached = filterHooks(hooks, thisArg)
    return reached === hooks ? this.current() : reached.map((hook) => unwrapListener(hook.callback))
  }

  /** Hooks as cordis holds them (with owning context), for inspection. */
  hooks(): readonly Hook[] {
    return this.hooksOf() ?? []
  }
}

const perLifecycle = new WeakMap<object, Map<string, ListenerList>>()

/** Lists per event name for one lifecycle, created on first use. */
export function listenerList(ctx: Context, name: string): ListenerList {
  const lifecycle = lifecycleOf(ctx)
  let lists = perLifecycle.get(lifecycle)
  if (!lists) perLifecycle.set(lifecycle, lists = new Map())
  let list = lists.get(name)
  if (!list) {
    list = new ListenerList(hookReader(ctx, name))
    lists.set(name, list)
  }
  return list
}
