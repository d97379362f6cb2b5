import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Context, Service, symbols } from 'cordis'
import { ownerName } from '@dsh/kernel'
import { cordisInternalsProblems, detachServiceContext, exposeAccessors, exposeService, filterHooks, hookReader, hookTable, raw, unwrapArgument, unwrapListener } from '@dsh/kernel/internals'

// the cordis line these internals were checked against; a different one must be re-checked here
const PINNED = /^3\.18\./

function installedVersion(name: string): string {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve(name))
  while (!dir.endsWith(join('node_modules', ...name.split('/')))) dir = dirname(dir)
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version
}

describe('cordis internals (one module reaches them; each is pinned here)', () => {
  it(`the installed cordis is the pinned line`, () => {
    const version = installedVersion('cordis')
    expect(version, `cordis ${version} is installed; core/kernel/src/cordis-internals.ts was checked against 3.18.x`).toMatch(PINNED)
  })

  it('every internal the kernel relies on holds for the installed cordis', () => {
    expect(cordisInternalsProblems()).toEqual([])
  })

  it('ctx.on stores a reflect proxy in lifecycle._hooks, and unwrapListener gives back the function registered', () => {
    const root = new Context()
    function listener() { return 1 }
    root.on('dsh/pin' as any, listener)
    const hooks = hookTable(root)['dsh/pin']!
    expect(hooks).toHaveLength(1)
    expect(hooks[0].callback).not.toBe(listener)
    expect(unwrapListener(hooks[0].callback)).toBe(listener)
    expect(hookReader(root, 'dsh/pin')()).toBe(hooks)
  })

  it('disposing a listener removes it from the same hook array, in place', () => {
    const root = new Context()
    const read = hookReader(root, 'dsh/pin')
    const dispose = root.on('dsh/pin' as any, () => {})
    const hooks = read()!
    dispose()
    expect(read()).toBe(hooks)
    expect(hooks).toHaveLength(0)
  })

  it('a scoped dispatch reaches global hooks and those its filter admits', () => {
    const root = new Context()
    const a = root.plugin({ name: 'a', apply(ctx: Context) { ctx.on('dsh/pin' as any, function fromA() {}) } } as any)
    root.plugin({ name: 'b', apply(ctx: Context) { ctx.on('dsh/pin' as any, function fromB() {}) } } as any)
    const hooks = hookTable(root)['dsh/pin']!
    const thisArg = { [Context.filter]: (ctx: Context) => ownerName(ctx) === 'a' }
    expect(filterHooks(hooks, thisArg).map((h) => unwrapListener(h.callback).name)).toEqual(['fromA'])
    expect(filterHooks(hooks, {})).toBe(hooks)
    a.dispose()
  })

  it('ownerName walks to the nearest named plugin, and a root context is "root"', () => {
    const root = new Context()
    let inner: Context | undefined
    root.plugin({ name: 'outer', apply(ctx: Context) { ctx.plugin((c: Context) => { inner = c }) } } as any)
    expect(ownerName(inner)).toBe('outer')
    expect(ownerName(root)).toBe('root')
    expect(ownerName(undefined)).toBe('root')
  })

  it('raw and unwrapArgument see through cordis proxies', async () => {
    const root = new Context()
    class Probe extends Service {
      constructor(ctx: Context) { super(ctx, 'dshProbe', true) }
      take(fn: () => void) { return unwrapArgument(fn) }
    }
    root.plugin(Probe)
    await root.lifecycle.flush()
    const proxied = (root as any).dshProbe
    expect(raw(proxied)).toBeInstanceOf(Probe)
    expect(raw(proxied)).not.toBe(proxied)
    const fn = () => {}
    expect(proxied.take(fn)).toBe(fn)
  })

  it('a service whose ctx is detached still sees its caller as this.ctx', async () => {
    const root = new Context()
    let own: Context | undefined
    class Probe extends Service {
      constructor(ctx: Context) {
        super(ctx, 'dshDetached', true)
        own = detachServiceContext(this)
      }
      caller() { return this.ctx }
    }
    root.plugin(Probe)
    await root.lifecycle.flush()
    expect(own).toBeInstanceOf(Object)
    let seen: Context | undefined
    root.plugin({ name: 'user', inject: ['dshDetached'], apply(ctx: Context) { seen = (ctx as any).dshDetached.caller() } } as any)
    await root.lifecycle.flush()
    expect(ownerName(seen)).toBe('user')
  })

  it('an exposed service: each plugin still calls it as itself, a replacement is seen, isolation holds, and another root is untouched', async () => {
    const root = new Context()
    class Probe extends Service {
      constructor(ctx: Context, public label: string) {
        super(ctx, 'dshExposed', true)
        detachServiceContext(this)
      }
      caller() { return this.ctx }
    }
    const first = root.plugin(Probe, 'first' as any)
    await root.lifecycle.flush()
    exposeService(root, 'dshExposed')
    expect(Object.getOwnPropertyDescriptor(root, 'dshExposed')?.get).toBeTypeOf('function')
    let user: Context | undefined
    root.plugin({ name: 'user', inject: ['dshExposed'], apply(ctx: Context) { user = ctx } } as any)
    await root.lifecycle.flush()
    expect(ownerName((user as any).dshExposed.caller())).toBe('user')
    expect(ownerName((root as any).dshExposed.caller())).toBe('root')
    expect(raw((user as any).dshExposed)).toBeInstanceOf(Probe)
    // one trace per reader, built once: read again it is the same object; another reader's is its own
    const trace = (user as any).dshExposed
    expect((user as any).dshExposed).toBe(trace)
    expect((root as any).dshExposed).not.toBe(trace)
    expect(Object.hasOwn(trace, symbols.shadow)).toBe(false)
    // the service replaced: the next read gets the new one
    first.dispose()
    expect((user as any).dshExposed).toBeUndefined()
    root.plugin(Probe, 'second' as any)
    await root.lifecycle.flush()
    expect(raw((user as any).dshExposed).label).toBe('second')
    expect((user as any).dshExposed).not.toBe(trace)
    expect(ownerName((user as any).dshExposed.caller())).toBe('user')
    // an isolated context has its own (absent) instance, as without exposure
    const isolated = root.isolate('dshExposed')
    expect((isolated as any).dshExposed).toBeUndefined()
    // nothing leaked onto cordis itself: a fresh root has no such property
    expect(Object.getOwnPropertyDescriptor(new Context(), 'dshExposed')).toBeUndefined()
  })

  it("exposeAccessors: a plugin reads cordis's accessors as before, on its own scope, and no Error is built for the read", async () => {
    // Why a counting Error: the context handler builds one, stack and all, for every name the raw context lacks
    const Original = globalThis.Error
    let built = 0
    const Counting = class extends Original {
      constructor(...args: any[]) {
        super(...args)
        if (String(args[0]).includes('is not registered')) built++
      }
    }
    const startAndStop = (root: Context) => {
      let heard = 0
      let child: any
      let seen: any = {}
      const fork = root.plugin({ name: 'reader', apply(ctx: Context) {
        ctx.on('dsh/accessor-spec' as any, () => { heard++ })
        child = ctx.plugin({ name: 'child', apply() {} } as any)
        seen = { runtime: (ctx as any).runtime, config: (ctx as any).config, get: typeof ctx.get, effect: typeof ctx.effect }
      } } as any, { level: 1 })
      root.emit('dsh/accessor-spec' as any)
      const during = heard
      fork.dispose()
      root.emit('dsh/accessor-spec' as any)
      return { fork, during, after: heard, child, seen }
    }
    const plain = new Context()
    const exposed = new Context()
    exposeAccessors(exposed)
    let before: number, after: number, a: ReturnType<typeof startAndStop>, b: ReturnType<typeof startAndStop>
    globalThis.Error = Counting as ErrorConstructor
    try {
      a = startAndStop(plain)
      before = built
      built = 0
      b = startAndStop(exposed)
      after = built
    } finally {
      globalThis.Error = Original
    }
    // what cordis does without it: the reads build Errors, so the count below can fail
    expect(before).toBeGreaterThan(0)
    expect(after).toBe(0)
    for (const run of [a, b]) {
      // the listener was the plugin's: heard while it ran, gone with it; its child plugin went with it too
      expect(run.during).toBe(1)
      expect(run.after).toBe(1)
      expect(run.seen.runtime).toBe((run.fork as any).runtime)
      expect(run.seen.config).toEqual({ level: 1 })
      expect(run.seen.get).toBe('function')
      expect(run.seen.effect).toBe('function')
      expect(run.child.uid).toBeNull()
    }
    // only that root: a fresh one has no such property
    expect(Object.getOwnPropertyDescriptor(new Context(), 'emit')).toBeUndefined()
    expect(Object.getOwnPropertyDescriptor(exposed, 'emit')?.get).toBeTypeOf('function')
  })
})

