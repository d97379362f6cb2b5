import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { Context } from 'cordis'
import { ToolService } from '@dsh/tools'
import { SystemPromptService } from '@dsh/system-prompt'
import { snapshot, type RegistrySnapshot } from '@dsh/tool-cordis'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

const fixtures = join(import.meta.dirname, '../fixtures')
const echo = `${fixtures}/plugins/echo-tool.mjs`
const deny = `${fixtures}/plugins/deny-pattern.mjs`
const ordered = `${fixtures}/tool-cordis/ordered.mjs`

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
  delete (globalThis as any).__orderedCalls
})

const group = (snap: RegistrySnapshot, event: string) => snap.listeners.find((g) => g.event === event)!
const owners = (snap: RegistrySnapshot, event: string) => group(snap, event)?.listeners.map((l) => l.owner) ?? []

describe('owners', () => {
  it('names the plugin of every tool, listener, guard, prompt section and loaded plugin right after loading', async () => {
    k = await createTestKernel({ plugins: { [echo]: { prefix: 'v1:' }, [deny]: { tool: 'echo', pattern: '^rm ' }, [ordered]: { label: 'o', tool: 'otool' } } })
    const snap = snapshot(k.ctx)
    expect(snap.tools.find((t) => t.name === 'echo')).toMatchObject({ owner: 'echo-tool', hasPrompt: true })
    expect(snap.tools.find((t) => t.name === 'otool')).toMatchObject({ owner: 'ordered' })
    expect(owners(snap, 'tools/pre-execute')).toEqual(['echo-tool', 'ordered'])
    expect(snap.guards.map((g) => g.owner)).toEqual(['deny-pattern', 'ordered'])
    expect(snap.guards[1].function).toBe('orderedGuard')
    expect(group(snap, 'tools/pre-execute').listeners[1].function).toBe('orderedListener')
    const prompt = new Map(snap.prompt.map((s) => [s.id, s]))
    expect(prompt.get('echo-tool:echo')).toMatchObject({ owner: 'echo-tool', chars: 'about echo'.length })
    // a tool's guidance section is added by the tools service, but belongs to the tool's plugin
    expect(prompt.get('tool:echo')?.owner).toBe('echo-tool')
    expect(prompt.get('tool:otool')?.owner).toBe('ordered')
    expect(prompt.get('ordered:o')).toMatchObject({ owner: 'ordered', order: 5 })
    const loaded = snap.plugins.filter((p) => p.source === 'config')
    expect(loaded.map((p) => [p.name, p.spec, p.status])).toEqual([
      ['echo-tool', echo, 'active'],
      ['deny-pattern', deny, 'active'],
      ['ordered', ordered, 'active'],
    ])
    expect(loaded[0].config).toEqual({ name: 'echo', prefix: 'v1:', delayMs: 0 })
  })

  it('a plugin plugged on the context directly is listed as a host plugin and owns what it adds', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'direct', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('direct_tool')) } })
    const snap = snapshot(k.ctx)
    expect(snap.tools.find((t) => t.name === 'direct_tool')?.owner).toBe('direct')
    expect(snap.plugins.find((p) => p.name === 'direct')).toMatchObject({ spec: null, source: 'host', kind: 'plugin', status: 'active' })
    expect(snap.plugins.find((p) => p.name === 'tools')).toMatchObject({ source: 'host', kind: 'service', status: 'active' })
  })

  it('a nested anonymous context reports the nearest named plugin', async () => {
    k = await createTestKernel()
    k.ctx.plugin({
      name: 'outer',
      apply: (ctx: Context) => {
        ctx.plugin((inner: Context) => { inner.on('tools/result', () => {}) })
      },
    })
    expect(owners(snapshot(k.ctx), 'tools/result')).toEqual(['outer'])
  })
})

describe('disposal', () => {
  it('a disposed plugin\'s tool, listener, guard and section are gone from the snapshot', async () => {
    k = await createTestKernel()
    const before = snapshot(k.ctx)
    const fork = k.ctx.plugin({
      name: 'temp',
      inject: ['tools', 'systemPrompt'],
      apply: (ctx: Context) => {
        ctx.tools.register(testTool('temp_tool', () => 'ok', { prompt: 'use temp' }))
        ctx.tools.guard(() => undefined)
        ctx.on('tools/post-execute', (input, next) => next())
        ctx.on('custom/event' as any, () => {})
        ctx.systemPrompt.section({ id: 'temp:section', text: 'temp' })
      },
    })
    const during = snapshot(k.ctx)
    expect(during.tools.map((t) => t.name)).toContain('temp_tool')
    expect(during.guards.map((g) => g.owner)).toContain('temp')
    expect(owners(during, 'tools/post-execute')).toEqual(['temp'])
    expect(owners(during, 'custom/event')).toEqual(['temp'])
    expect(during.prompt.map((s) => s.id)).toEqual(expect.arrayContaining(['temp:section', 'tool:temp_tool']))
    fork.dispose()
    const after = snapshot(k.ctx)
    expect(after).toEqual(before)
    expect(JSON.stringify(after)).not.toContain('temp')
  })

  it('a plugin removed by reload is gone, its replacement is attributed, and a kept fork is reported disposed', async () => {
    k = await createTestKernel({ plugins: { [echo]: {}, [deny]: { tool: 'echo', pattern: 'x' } } })
    const oldFork = k.plugins().find((p) => p.spec === deny)!.fork
    await k.reload({ plugins: { [echo]: { prefix: 'v2:' } } })
    const snap = snapshot(k.ctx)
    expect(snap.guards).toEqual([])
    expect(snap.plugins.filter((p) => p.source === 'config').map((p) => p.spec)).toEqual([echo])
    expect(snap.tools.find((t) => t.name === 'echo')?.owner).toBe('echo-tool')
    // a host that kept the old list sees that fork as disposed
    const stale = snapshot(k.ctx, { plugins: () => [{ spec: deny, plugin: { name: 'deny-pattern' }, config: {}, fork: oldFork }] })
    expect(stale.plugins[0]).toMatchObject({ spec: deny, status: 'disposed' })
  })
})

describe('listener order', () => {
  const plug = (k: TestKernel, label: string, prepend = false) =>
    k.ctx.plugin({ name: label, apply: (ctx: Context) => { ctx.on('tools/pre-execute', (exec, next) => { ;((globalThis as any).__orderedCalls ??= []).push(label); return next() }, prepend) } })

  it('is registration order, with prepend first — the order the pipeline calls them in', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'tools-fixture', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('t')) } })
    plug(k, 'a')
    plug(k, 'b', true)
    plug(k, 'c')
    plug(k, 'd', true)
    const listeners = group(snapshot(k.ctx), 'tools/pre-execute').listeners
    expect(listeners.map((l) => [l.order, l.owner, l.prepend])).toEqual([[1, 'd', true], [2, 'b', true], [3, 'a', false], [4, 'c', false]])
    expect((await k.call('t')).isError).toBe(false)
    expect((globalThis as any).__orderedCalls).toEqual(listeners.map((l) => l.owner))
  })

  it('lists the waterfalls always (empty too), then other events with listeners, never internal ones', async () => {
    k = await createTestKernel()
    const events = snapshot(k.ctx).listeners.map((g) => g.event)
    expect(events.slice(0, 6)).toEqual(['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'approval/request', 'system-prompt/assemble', 'tools/result'])
    expect(events.some((e) => e.startsWith('internal/'))).toBe(false)
    expect(snapshot(k.ctx).listeners.find((g) => g.event === 'tools/execute')?.kind).toBe('waterfall')
    expect(snapshot(k.ctx).listeners.find((g) => g.event === 'tools/result')?.kind).toBe('event')
  })
})

describe('tools', () => {
  it('reports concurrency (dynamic for a classifier), timeout, prompt and finalizer', async () => {
    k = await createTestKernel({ plugins: { [ordered]: { tool: 'otool' } } })
    k.ctx.plugin({ name: 'plain', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('plain_tool'))
      ctx.tools.register(testTool('par_tool', () => 'ok', { concurrency: 'parallel' }))
    } })
    const tools = new Map(snapshot(k.ctx).tools.map((t) => [t.name, t]))
    expect(tools.get('otool')).toMatchObject({ concurrency: 'dynamic', timeoutMs: 1234, hasPrompt: true, hasFinalizer: true, description: 'tool of ordered' })
    expect(tools.get('plain_tool')).toMatchObject({ concurrency: 'exclusive', timeoutMs: null, hasPrompt: false, hasFinalizer: false })
    expect(tools.get('par_tool')?.concurrency).toBe('parallel')
  })

  for (const mode of ['native', 'code', 'both'] as const) {
    it(`visibility under ${mode} is what wireSchemas() sends`, async () => {
      k = await createTestKernel({ tools: { mode } })
      k.ctx.plugin({ name: 'plain', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('plain_tool')) } })
      const snap = snapshot(k.ctx)
      expect(snap.mode).toBe(mode)
      const wired = new Set(k.ctx.tools.wireSchemas().map((s) => s.name))
      for (const tool of snap.tools) {
        expect(tool.visibility[mode], tool.name).toBe(wired.has(tool.name))
        expect(tool.wired, tool.name).toBe(wired.has(tool.name))
      }
      expect(snap.tools.find((t) => t.name === 'plain_tool')).toMatchObject({ visibility: { native: true, code: false, both: true }, sdk: true })
    })
  }
})

describe('plugin status', () => {
  it('reports a failed apply with its error, and a plugin waiting for a service as pending', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'boom', apply: () => { throw new Error('apply exploded') } })
    k.ctx.plugin({ name: 'waits', inject: ['nonexistentService'], apply: () => {} })
    await k.ctx.lifecycle.flush()
    const plugins = new Map(snapshot(k.ctx).plugins.map((p) => [p.name, p]))
    expect(plugins.get('boom')).toMatchObject({ status: 'failed', error: expect.stringContaining('apply exploded') })
    expect(plugins.get('waits')?.status).toBe('pending')
  })

  it('redacts secret-looking config keys', async () => {
    k = await createTestKernel({ plugins: { [ordered]: { apiToken: 'sk-very-secret' } } })
    const snap = snapshot(k.ctx)
    expect(snap.plugins.find((p) => p.name === 'ordered')?.config).toMatchObject({ apiToken: '[redacted]' })
    expect(JSON.stringify(snap)).not.toContain('sk-very-secret')
  })
})

describe('sandbox and approval', () => {
  it('shows candidates unprobed until something probes, then the probe results and the chosen backend', async () => {
    k = await createTestKernel()
    const first = snapshot(k.ctx).sandbox!
    expect(first.chosen).toBeNull()
    expect(first.candidates.length).toBeGreaterThan(0)
    expect(first.candidates.every((c) => c.probe === null || !c.runsHere)).toBe(true)
    const status = await k.ctx.sandbox.probe()
    const probed = snapshot(k.ctx).sandbox!
    expect(probed.chosen).toBe(status.chosen ?? null)
    for (const c of probed.candidates.filter((c) => c.runsHere)) {
      const real = status.candidates.find((s) => s.name === c.name)!.probe!
      expect(c.probe).toMatchObject({ available: real.available, reason: real.reason ?? null, path: real.path ?? null })
    }
    expect(probed.defaults).toMatchObject({ mode: 'read-only', network: 'off' })
  })

  it('a provided backend whose probe throws is reported unavailable with the reason, not as chosen', async () => {
    k = await createTestKernel()
    k.ctx.plugin({
      name: 'bad-backend',
      inject: ['sandbox'],
      apply: (ctx: Context) => {
        ctx.sandbox.provide({ name: 'broken', platforms: [process.platform], probe: async () => { throw new Error('no such thing') }, confine: () => { throw new Error('unreachable') } })
      },
    })
    await k.ctx.sandbox.probe()
    const sandbox = snapshot(k.ctx).sandbox!
    expect(sandbox.candidates[0]).toMatchObject({ name: 'broken', source: 'provided', probe: { available: false, reason: expect.stringContaining('no such thing') } })
    expect(sandbox.chosen).not.toBe('broken')
  })

  it('reports the approval policy and preset', async () => {
    k = await createTestKernel({ approval: { preset: 'full-access' } })
    expect(snapshot(k.ctx).approval).toMatchObject({ policy: 'never', preset: 'full-access', timeoutMs: 600000 })
    expect(snapshot(k.ctx).approval!.presets.map((p) => p.name)).toEqual(['read-only', 'auto', 'workspace-write', 'full-access'])
    await k.cleanup()
    k = await createTestKernel({ approval: { policy: 'ask', timeoutMs: 5000 } })
    expect(snapshot(k.ctx).approval).toMatchObject({ policy: 'ask', preset: null, timeoutMs: 5000 })
  })
})

describe('a context without the optional services', () => {
  it('gives empty sections and nulls, never a throw', async () => {
    const ctx = new Context()
    ctx.plugin(SystemPromptService)
    ctx.plugin(ToolService)
    await ctx.start()
    const snap = snapshot(ctx)
    expect(snap.mode).toBe('native')
    expect(snap.sandbox).toBeNull()
    expect(snap.approval).toBeNull()
    expect(snap.plugins.every((p) => p.source === 'host')).toBe(true)
    const bare = snapshot(new Context())
    expect(bare).toMatchObject({ mode: null, tools: [], guards: [], prompt: [], sandbox: null, approval: null })
    await ctx.stop()
  })

  it('a prompt section whose text throws is still listed with its owner and the error', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'bad-text', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.systemPrompt.section({ id: 'bad', text: () => { throw new Error('text exploded') } }) } })
    const section = snapshot(k.ctx).prompt.find((s) => s.id === 'bad')
    expect(section).toMatchObject({ owner: 'bad-text', order: null, chars: null, error: expect.stringContaining('text exploded') })
  })
})

describe('JSON and read-only', () => {
  it('is plain JSON: it survives a JSON round trip unchanged', async () => {
    k = await createTestKernel({ plugins: { [echo]: {}, [ordered]: { tool: 'otool' } } })
    await k.ctx.sandbox.probe()
    const snap = snapshot(k.ctx)
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap)
  })

  it('changes nothing: hook arrays, guards, tools, probes, sessions and the kernel\'s listener caches stay as they were', async () => {
    k = await createTestKernel({ plugins: { [echo]: {}, [deny]: { pattern: 'x' } } })
    let probes = 0
    k.ctx.plugin({ name: 'counted-backend', inject: ['sandbox'], apply: (ctx: Context) => {
      ctx.sandbox.provide({ name: 'counted', platforms: [process.platform], probe: async () => { probes++; return { available: false, reason: 'counted' } }, confine: () => { throw new Error('unused') } })
    } })
    const lifecycle = k.ctx.root.lifecycle as any
    const hooks = Object.fromEntries(Object.entries(lifecycle._hooks).map(([name, list]) => [name, [...(list as unknown[])]]))
    const listsBefore = lifecycle.__dshLists ? new Map(lifecycle.__dshLists) : undefined
    const guards = k.ctx.tools.guards()
    const entries = k.ctx.tools.entries()
    const events = k.session.events().length
    const first = snapshot(k.ctx)
    const second = snapshot(k.ctx)
    expect(second).toEqual(first)
    for (const [name, list] of Object.entries(lifecycle._hooks)) expect(list, name).toEqual(hooks[name])
    expect(Object.keys(lifecycle._hooks)).toEqual(Object.keys(hooks))
    expect(lifecycle.__dshLists ? new Map(lifecycle.__dshLists) : undefined).toEqual(listsBefore)
    expect(k.ctx.tools.guards()).toBe(guards)
    expect(k.ctx.tools.entries()).toEqual(entries)
    // a probe would start in a later microtask: let every pending one run first
    await new Promise((resolve) => setImmediate(resolve))
    expect(probes).toBe(0)
    expect(k.ctx.sandbox.status().chosen).toBeUndefined()
    expect(k.session.events().length).toBe(events)
  })
})
