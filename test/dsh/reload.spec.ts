import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernel, KernelError, type Kernel } from 'dsh'

const fixtures = join(import.meta.dirname, '../fixtures/plugins')
let dir: string
let kernel: Kernel | undefined

beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-reload-')) })
afterEach(async () => {
  await kernel?.dispose()
  kernel = undefined
  rmSync(dir, { recursive: true, force: true })
})

function yml(text: string) {
  const path = join(dir, 'dsh.yml')
  writeFileSync(path, text)
  return path
}

async function start(text: string) {
  kernel = await createKernel({ configFile: yml(text), dataDir: join(dir, '.dsh') })
  const session = kernel.openSession({ id: 's' })
  session.beginTurn()
  let n = 0
  const call = (name: string, args: unknown = {}) => kernel!.execute({ callId: `c${++n}`, name, arguments: args, session })
  return { session, call }
}

/** Everything the kernel holds that a plugin could have added. */
function census(k: Kernel) {
  const hooks = (k.ctx.root.lifecycle as any)._hooks as Record<string, unknown[]>
  const listeners = Object.entries(hooks).filter(([name]) => !name.startsWith('internal/')).reduce((sum, [, list]) => sum + list.length, 0)
  return { listeners, guards: k.ctx.tools.guards().length, tools: k.ctx.tools.entries().length, sections: k.ctx.systemPrompt.sections().length }
}

const base = `
plugins:
  ${fixtures}/echo-tool.mjs:
    prefix: "v1:"
  ${fixtures}/deny-pattern.mjs:
    tool: echo
    pattern: "^rm "
`

describe('dsh.yml and reload', () => {
  it('loads plugins by path from dsh.yml', async () => {
    const { call } = await start(base)
    expect((await call('echo', { command: 'hi' })).content[0]).toEqual({ type: 'text', text: 'v1:hi' })
    expect((await call('echo', { command: 'rm -rf /' })).error?.code).toBe('DENIED')
  })

  it('reload() re-reads the file and replaces only the changed plugin', async () => {
    const { call } = await start(base)
    const before = new Map(kernel!.plugins().map((p) => [p.spec, p.fork]))
    yml(base.replace('v1:', 'v2:'))
    const summary = await kernel!.reload()
    expect(summary.changed).toEqual([`${fixtures}/echo-tool.mjs`])
    expect(summary.unchanged).toEqual([`${fixtures}/deny-pattern.mjs`])
    const after = new Map(kernel!.plugins().map((p) => [p.spec, p.fork]))
    expect(after.get(`${fixtures}/deny-pattern.mjs`)).toBe(before.get(`${fixtures}/deny-pattern.mjs`))
    expect(after.get(`${fixtures}/echo-tool.mjs`)).not.toBe(before.get(`${fixtures}/echo-tool.mjs`))
    expect((await call('echo', { command: 'hi' })).content[0]).toEqual({ type: 'text', text: 'v2:hi' })
    expect((await call('echo', { command: 'rm x' })).error?.code).toBe('DENIED')
  })

  it('an invalid config changes nothing and names the plugin and path', async () => {
    const { call } = await start(base)
    yml(base.replace('pattern: "^rm "', 'pattern: 42'))
    const error = await kernel!.reload().catch((e) => e)
    expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
    expect(error.message).toMatch(/deny-pattern\.mjs/)
    expect(error.message).toMatch(/pattern/)
    expect((await call('echo', { command: 'rm x' })).error?.code).toBe('DENIED')
    expect((await call('echo', { command: 'hi' })).content[0]).toEqual({ type: 'text', text: 'v1:hi' })
  })

  it('rejects unknown keys in the file and in a plugin config, naming them', async () => {
    await expect(createKernel({ configFile: yml('toolz: {}\n') })).rejects.toThrow(/unknown key toolz/)
    await expect(createKernel({ configFile: yml(base.replace('tool: echo', 'tool: echo\n    typo: 1')), dataDir: join(dir, '.dsh') })).rejects.toThrow(/deny-pattern\.mjs.*unknown key typo/)
  })

  it('reports YAML syntax errors with the line', async () => {
    await expect(createKernel({ configFile: yml('plugins:\n  a: [1,\n') })).rejects.toThrow(/dsh\.yml:\d+:\d+/)
  })

  it('reports a plugin that throws or waits for a missing service, and starts nothing', async () => {
    await expect(createKernel({ configFile: yml(`plugins:\n  ${fixtures}/needs-missing.mjs: {}\n`), dataDir: join(dir, '.dsh') })).rejects.toThrow(/waiting for service\(s\) nonexistentService/)
    await expect(createKernel({ configFile: yml(`plugins:\n  ${fixtures}/throws.mjs: {}\n`), dataDir: join(dir, '.dsh') })).rejects.toThrow(/apply exploded/)
  })

  it('a reload whose new plugin fails to start puts the old set back', async () => {
    const { call } = await start(base)
    yml(base + `  ${fixtures}/throws.mjs: {}\n`)
    await expect(kernel!.reload()).rejects.toThrow(/apply exploded/)
    expect(kernel!.plugins().map((p) => p.spec).sort()).toEqual([`${fixtures}/deny-pattern.mjs`, `${fixtures}/echo-tool.mjs`])
    expect((await call('echo', { command: 'rm x' })).error?.code).toBe('DENIED')
  })

  it('a failed reload leaves the services and the mode as they were (never stays never)', async () => {
    kernel = await createKernel({ dataDir: join(dir, '.dsh'), approval: { policy: 'never' } })
    const error = await kernel.reload({ approval: { policy: 'ask' }, tools: { mode: 'code' }, plugins: { [`${fixtures}/throws.mjs`]: {} } }).catch((e) => e)
    expect(error?.message).toMatch(/apply exploded/)
    expect((kernel.ctx as any).approval.settings.policy).toBe('never')
    expect(kernel.ctx.tools.mode).toBe('native')
  })

  it('calls that start during a reload wait for it; none runs under a half-applied set', async () => {
    const { call } = await start(base)
    // the new set has an asynchronous plugin: a call must not slip in before its guard exists
    yml(base + `  ${fixtures}/slow-start.mjs:\n    ms: 80\n`)
    const applying = new Promise<void>((resolve) => { (globalThis as any).__slowStartApplying = resolve })
    const reloading = kernel!.reload()
    await applying
    // the swap is under way and the new guard does not exist yet
    expect(kernel!.ctx.tools.guards().length).toBe(1)
    const during = call('echo', { command: 'slow-blocked' })
    await reloading
    expect((await during).error?.message).toBe('blocked by slow-start')
    delete (globalThis as any).__slowStartApplying
  })

  it('a reload during 200 in-flight calls loses no call and gives each exactly one result', async () => {
    const { session, call } = await start(base.replace('"v1:"', '"v1:"\n    delayMs: 20'))
    const calls = Array.from({ length: 200 }, (_, i) => call('echo', { command: `n${i}` }))
    yml(base.replace('v1:', 'v2:').replace('"v2:"', '"v2:"\n    delayMs: 1'))
    await kernel!.reload()
    const results = await Promise.all(calls)
    expect(results.every((r) => !r.isError)).toBe(true)
    // started before the reload: they finish with the tool they started with
    expect(results.every((r) => (r.content[0] as any).text.startsWith('v1:'))).toBe(true)
    const ids = new Set(results.map((r) => r.callId))
    expect(ids.size).toBe(200)
    await session.flush()
    for (const id of ids) {
      const types = session.events().filter((e) => (e.data as any)?.callId === id).map((e) => e.type)
      expect(types).toEqual(['tool/call', 'tool/result'])
    }
  })

  it('1,000 reload cycles leave no listener, guard, tool or prompt section behind', async () => {
    await start('plugins: {}\n')
    const empty = census(kernel!)
    const full = { plugins: { [`${fixtures}/echo-tool.mjs`]: { prefix: 'a' }, [`${fixtures}/deny-pattern.mjs`]: { pattern: 'x' } } }
    await kernel!.reload(full)
    const loaded = census(kernel!)
    expect(loaded.guards - empty.guards).toBe(1)
    expect(loaded.tools - empty.tools).toBe(1)
    for (let i = 0; i < 1000; i++) {
      await kernel!.reload({ plugins: { ...full.plugins, [`${fixtures}/echo-tool.mjs`]: { prefix: `p${i}` } } })
    }
    expect(census(kernel!)).toEqual(loaded)
    await kernel!.reload({ plugins: {} })
    expect(census(kernel!)).toEqual(empty)
  }, 180_000)

  it('emits tools/change when a reload changes the visible tools', async () => {
    await start(base)
    let changes = 0
    kernel!.ctx.on('tools/change', () => { changes++ })
    await kernel!.reload({ plugins: {} })
    await Promise.resolve()
    expect(changes).toBeGreaterThan(0)
    expect(kernel!.ctx.tools.get('echo')).toBeUndefined()
  })

  it('switches the tools mode on reload', async () => {
    await start(base)
    await kernel!.reload({ tools: { mode: 'code' }, plugins: {} })
    expect(kernel!.ctx.tools.mode).toBe('code')
  })
})
