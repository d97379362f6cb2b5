/** The one door to cordis's internals, so a cordis upgrade touches one file and `cordisInternalsProblems()` names what it broke (what is used, and why: docs/architecture.md, Waterfalls). */
import { Context, getTraceable, isObject, ReflectService, symbols, type ForkScope } from 'cordis'

type AnyFn = (...args: any[]) => any

/** An entry of cordis's hook table. */
export interface Hook {
  ctx: Context
  callback: AnyFn
  prepend?: boolean
  global?: boolean
}

const originals = new WeakMap<AnyFn, AnyFn>()
const reflectProto = ReflectService.prototype as unknown as { bind(fn: AnyFn): AnyFn; __dshPatched?: boolean }
if (typeof reflectProto.bind === 'function' && !reflectProto.__dshPatched) {
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

/** The root lifecycle's hook table: event name → live hook list (cordis mutates these arrays in place). */
export function hookTable(ctx: Context): Record<string, Hook[] | undefined> {
  const lifecycle = raw(raw(ctx.root).lifecycle) as unknown as { _hooks?: Record<string, Hook[] | undefined> }
  return lifecycle._hooks ?? {}
}

/** A reader of one event's live hook list on the root lifecycle. */
export function hookReader(ctx: Context, name: string): () => Hook[] | undefined {
  const lifecycle = raw(raw(ctx.root).lifecycle) as unknown as { _hooks: Record<string, Hook[] | undefined> }
  return () => lifecycle._hooks[name]
}

/** A stable key for one root's lifecycle (what per-root caches hang on). */
export function lifecycleOf(ctx: Context): object {
  return raw(raw(ctx.root).lifecycle) as unknown as object
}

/** The filter a scoped dispatch applies (`thisArg[Context.filter]`), if it has one. */
export function filterOf(thisArg: unknown): ((ctx: Context) => boolean) | undefined {
  const filter = (thisArg as any)?.[Context.filter]
  return typeof filter === 'function' ? (ctx: Context) => !!filter.call(thisArg, ctx) : undefined
}

/** The hooks of `name` that a scoped dispatch with `thisArg` reaches (cordis's own filter rule). */
export function filterHooks(hooks: readonly Hook[], thisArg: unknown): readonly Hook[] {
  const filter = filterOf(thisArg)
  return filter ? hooks.filter((hook) => hook.global || filter(hook.ctx)) : hooks
}

const names = new WeakMap<object, string>()

/**
 * The plugin name of a context: the nearest named plugin up its scope chain
 * (what `ctx.name` says), cached per scope — `ctx.name` goes through cordis's proxy.
 */
export function ownerName(ctx: Context | undefined): string {
  const scope = (ctx as any)?.scope
  if (!scope) return 'root'
  let name = names.get(scope)
  if (name === undefined) {
    let runtime = scope.runtime
    while (runtime && !runtime.name) runtime = runtime.parent?.scope?.runtime ?? runtime.parent?.runtime
    name = (runtime?.name as string | undefined) ?? 'root'
    names.set(scope, name)
  }
  return name
}

/** Whether the root declares `name` as a service (`Context.internal`). */
export function isServiceName(ctx: Context, name: string): boolean {
  const internal = (raw(ctx.root) as unknown as Record<symbol, Record<string, { type?: string } | undefined>>)[Context.internal] ?? {}
  return Object.hasOwn(internal, name) && internal[name]?.type === 'service'
}

const serviceContexts = new WeakMap<object, Context>()

/**
 * Take a service's own `ctx` off the instance and return it. Kept behind an accessor on its
 * class's prototype (defined by the first call for that class; the raw service reads its own
 * context through it) it is not own data, so traced member accesses build no shadow context; a
 * traced method still sees its caller as `this.ctx`, from the trace itself.
 */
export function detachServiceContext(service: object): Context {
  const own = (service as { ctx: Context }).ctx
  delete (service as { ctx?: Context }).ctx
  serviceContexts.set(service, own)
  const proto = Object.getPrototypeOf(service) as object
  if (!Object.hasOwn(proto, 'ctx')) {
    Object.defineProperty(proto, 'ctx', {
      configurable: true,
      get(this: object) {
        return serviceContexts.get(this)
      },
      set(this: object, value: Context) {
        serviceContexts.set(this, value)
      },
    })
  }
  return own
}

const exposed = new WeakMap<object, Set<string>>()

/** `ctx.<name>` read from cordis's store and traced for the caller, since cordis's lookup builds an Error on every read (decisions/2026-12-01-public-call-trace.md). */
export function exposeService(ctx: Context, name: string, direct: readonly string[] = []): void {
  // defined on the context object behind the root's proxy (no defineProperty trap): only this root's contexts see it
  const root = ctx.root as unknown as Record<PropertyKey, any>
  let names = exposed.get(root)
  if (!names) exposed.set(root, (names = new Set()))
  if (names.has(name) || Object.hasOwn(root, name)) return
  names.add(name)
  // reading context → the service instance it last read and that instance's trace, in its holder
  const traces = new WeakMap<object, { value: object; held: object }>()
  Object.defineProperty(root, name, {
    configurable: true,
    enumerable: false,
    // `this` is the reading context; assignments never reach here (cordis's set trap takes them)
    get(this: Record<PropertyKey, any>) {
      const value = this[symbols.store][this[symbols.isolate][name]]?.value
      if (!isObject(value)) return value
      let trace = traces.get(this)
      if (trace?.value !== value) traces.set(this, (trace = { value, held: holder(getTraceable(this as unknown as Context, value, true), value, direct) }))
      return trace.held
    },
  })
}

/**
 * A shadow holder for `traced`: cordis hands out the holder's prototype as it is. Without `direct`
 * that is the trace itself; with it, a layer over the trace whose own `direct` methods are bound
 * to the raw service (everything else still reads through the trace).
 */
function holder(traced: object, value: object, direct: readonly string[]): object {
  let layer = traced
  if (direct.length) {
    const methods: PropertyDescriptorMap = {}
    for (const method of direct) {
      const fn = (value as Record<string, unknown>)[method]
      if (typeof fn === 'function') methods[method] = { value: fn.bind(value) }
    }
    layer = Object.create(traced, methods)
  }
  return Object.create(layer, { [symbols.shadow]: { value: true } })
}

/** Whether `object` or an object on its prototype chain has `name` (no proxy trap is asked: cordis's context handler has none for descriptors). */
function defined(object: object | null, name: string): boolean {
  for (; object; object = Object.getPrototypeOf(object)) if (Object.getOwnPropertyDescriptor(object, name)) return true
  return false
}

/** cordis's accessors as own properties of the root, since its context handler builds an Error for every read of one (docs/architecture.md, Hot path). */
export function exposeAccessors(ctx: Context): void {
  const root = ctx.root as unknown as Record<PropertyKey, any>
  const internal = root[symbols.internal] as Record<string, { type?: string } | undefined>
  for (const name of Object.keys(internal)) {
    if (internal[name]?.type !== 'accessor' || defined(root, name)) continue
    Object.defineProperty(root, name, {
      configurable: true,
      enumerable: false,
      // `this` is the reading context; assignments never reach here (cordis's set trap takes them)
      get(this: Record<PropertyKey, any>) {
        const entry = this[symbols.internal][name] as { type?: string; get?: (receiver: unknown) => unknown } | undefined
        if (entry?.type !== 'accessor' || !entry.get) return undefined
        const value = entry.get.call(this, this[symbols.receiver])
        return isObject(value) && (value as any)[symbols.tracker] ? Object.create(value as object, { [symbols.shadow]: { value: true } }) : value
      },
    })
  }
}

/** What the installed cordis no longer provides of the above (empty when all holds). */
export function cordisInternalsProblems(): string[] {
  const problems: string[] = []
  if (typeof reflectProto.bind !== 'function') problems.push('ReflectService.prototype.bind is gone: listeners can no longer be unwrapped from their reflect proxy')
  else if (!reflectProto.__dshPatched) problems.push('ReflectService.prototype.bind could not be patched')
  if (typeof symbols?.original !== 'symbol') problems.push('symbols.original is gone: raw() cannot see through traceable proxies')
  if (typeof Context.filter !== 'symbol') problems.push('Context.filter is gone: scoped waterfalls cannot apply cordis filters')
  if (typeof Context.internal !== 'symbol') problems.push('Context.internal is gone: services cannot be told from plugins')
  const root = new Context()
  const table = (raw(root.lifecycle) as unknown as { _hooks?: unknown })._hooks
  if (!table || typeof table !== 'object') problems.push('lifecycle._hooks is gone: listener lists cannot be read')
  else {
    const listener = function probe() {}
    const dispose = root.on('dsh/internals-probe' as any, listener)
    const hooks = (table as Record<string, Hook[] | undefined>)['dsh/internals-probe']
    const hook = hooks?.[hooks.length - 1]
    if (!hook) problems.push('lifecycle._hooks[name] no longer holds the listeners ctx.on registered')
    else {
      if (typeof hook.callback !== 'function') problems.push('a lifecycle._hooks entry has no callback function')
      else if (unwrapListener(hook.callback) !== listener) problems.push('ctx.on no longer wraps listeners through ReflectService.prototype.bind')
      if (!hook.ctx || typeof hook.ctx !== 'object') problems.push('a lifecycle._hooks entry has no owning ctx')
    }
    dispose()
    if (hooks?.includes(hook!)) problems.push('disposing a listener no longer removes it from lifecycle._hooks in place')
  }
  const fork = root.plugin({ name: 'dsh-internals-probe', apply() {} } as any)
  if (ownerName(fork.ctx) !== 'dsh-internals-probe') problems.push('scope.runtime.name no longer names the plugin a context belongs to')
  fork.dispose()
  problems.push(...exposedServiceProblems(), ...exposedAccessorProblems())
  return problems
}

/** Whether `exposeAccessors` still reads each accessor as cordis does, for the reading context. */
function exposedAccessorProblems(): string[] {
  if (typeof symbols?.receiver !== 'symbol' || typeof symbols?.tracker !== 'symbol') return ['symbols.receiver or symbols.tracker is gone: cordis accessors cannot be read as cordis reads them']
  const root = new Context()
  exposeAccessors(root)
  const problems: string[] = []
  if (!['emit', 'on', 'plugin', 'get', 'runtime'].every((name) => Object.hasOwn(root, name))) problems.push("cordis's own mixins (emit, on, plugin, get, runtime) are no longer accessors in symbols.internal")
  let heard: unknown
  const fork: ForkScope = root.plugin({ name: 'dsh-accessor-probe', apply(ctx: Context) {
    ctx.on('dsh/accessor-probe' as any, function (this: unknown, value: unknown) { heard = value })
  } } as any)
  const ctx = fork.ctx as any
  if (ctx.runtime !== (fork as any).runtime) problems.push("an exposed accessor no longer reads the reading context's own value (ctx.runtime)")
  root.emit('dsh/accessor-probe' as any, 1)
  if (heard !== 1) problems.push('ctx.on read through an exposed accessor no longer registers the listener ctx.emit reaches')
  fork.dispose()
  heard = undefined
  root.emit('dsh/accessor-probe' as any, 2)
  if (heard !== undefined) problems.push("ctx.on read through an exposed accessor no longer registers on the reading plugin's scope (its listener outlived the plugin)")
  return problems
}

/** Whether `exposeService` still gives each caller the service, traced for that caller. */
function exposedServiceProblems(): string[] {
  if (typeof symbols?.store !== 'symbol' || typeof symbols?.isolate !== 'symbol') return ['symbols.store or symbols.isolate is gone: services cannot be read from the store']
  const root = new Context()
  const service = { whoAmI(this: { ctx: Context }) { return this.ctx } }
  root.provide('dshProbe', service)
  exposeService(root, 'dshProbe')
  let callerCtx: Context | undefined
  root.plugin({ name: 'dsh-expose-probe', apply(ctx: Context) { callerCtx = ctx } } as any)
  const seen = (callerCtx as any)?.dshProbe
  const problems: string[] = []
  if (!seen || raw(seen) !== service) problems.push('a service exposed on the root is no longer what a plugin context reads')
  else {
    if (seen.whoAmI() !== callerCtx) problems.push("an exposed service no longer sees its caller's context as this.ctx")
    if ((callerCtx as any).dshProbe !== seen || Object.hasOwn(seen, symbols.shadow)) problems.push('cordis traces an exposed service again on every read: getTraceable no longer takes an object with an own symbols.shadow for its prototype')
    if ((root as any).dshProbe.whoAmI() !== root) problems.push("an exposed service's trace is shared between readers: the root no longer sees itself as this.ctx")
  }
  return problems
}
