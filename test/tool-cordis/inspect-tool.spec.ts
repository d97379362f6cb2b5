import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { Context } from 'cordis'
import * as ToolCordis from '@dsh/tool-cordis'
import { filterSnapshot, snapshot, TOOL_NAME, type RegistrySnapshot } from '@dsh/tool-cordis'
import { createTestKernel, type TestKernel } from 'dsh/testing'

const fixtures = join(import.meta.dirname, '../fixtures')
const echo = `${fixtures}/plugins/echo-tool.mjs`
const deny = `${fixtures}/plugins/deny-pattern.mjs`

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

async function kernel(extra: Record<string, unknown> = {}) {
  k = await createTestKernel({ plugins: { [echo]: {}, [deny]: { tool: 'echo', pattern: '^rm ' }, 'tool-cordis': {}, ...extra } })
  return k
}

describe('cordis_inspect through the pipeline', () => {
  it('returns the snapshot as its value and the same as compact JSON text', async () => {
    const k = await kernel()
    const result = await k.call(TOOL_NAME, {})
    expect(result.isError).toBe(false)
    expect(result.value).toEqual(snapshot(k.ctx))
    expect(result.content).toHaveLength(1)
    const text = (result.content[0] as { text: string }).text
    expect(JSON.parse(text)).toEqual(result.value)
    expect(text).not.toContain('\n')
    const value = result.value as unknown as RegistrySnapshot
    expect(value.tools.find((t) => t.name === TOOL_NAME)).toMatchObject({ owner: 'tool-cordis', concurrency: 'parallel' })
    expect(value.plugins.find((p) => p.spec === 'tool-cordis')).toMatchObject({ name: 'tool-cordis', status: 'active', source: 'config' })
  })

  it('is classified parallel', async () => {
    const k = await kernel()
    expect(k.ctx.tools.concurrency(TOOL_NAME, {})).toBe('parallel')
  })

  it('filters to one section', async () => {
    const k = await kernel()
    const guards = await k.call(TOOL_NAME, { section: 'guards' })
    expect(guards.value).toEqual({ guards: [{ order: 1, owner: 'deny-pattern', function: null, name: '#1' }] })
    const tools = await k.call(TOOL_NAME, { section: 'tools' })
    expect(Object.keys(tools.value as object).sort()).toEqual(['mode', 'tools'])
    const sandbox = await k.call(TOOL_NAME, { section: 'sandbox' })
    expect(Object.keys(sandbox.value as object)).toEqual(['sandbox'])
  })

  it('filters by name: an entry\'s own name, or everything a plugin owns', async () => {
    const k = await kernel()
    const byPlugin = (await k.call(TOOL_NAME, { name: 'echo-tool' })).value as unknown as RegistrySnapshot
    expect(byPlugin.tools.map((t) => t.name)).toEqual(['echo'])
    expect(byPlugin.listeners.map((g) => [g.event, g.listeners.map((l) => l.owner)])).toEqual([['tools/pre-execute', ['echo-tool']]])
    expect(byPlugin.guards).toEqual([])
    expect(byPlugin.prompt.map((s) => s.id).sort()).toEqual(['echo-tool:echo', 'tool:echo'])
    expect(byPlugin.plugins.map((p) => p.name)).toEqual(['echo-tool'])
    const byEvent = (await k.call(TOOL_NAME, { name: 'tools/pre-execute', section: 'listeners' })).value as Partial<RegistrySnapshot>
    expect(byEvent.listeners?.map((g) => g.event)).toEqual(['tools/pre-execute'])
    const byTool = (await k.call(TOOL_NAME, { section: 'tools', name: 'echo' })).value as Partial<RegistrySnapshot>
    expect(byTool.tools?.map((t) => t.name)).toEqual(['echo'])
  })

  it('a name nothing has gives empty lists; prototype names are just names', async () => {
    const k = await kernel()
    for (const name of ['nothing-here', '__proto__', 'constructor', 'toString']) {
      const value = (await k.call(TOOL_NAME, { name })).value as unknown as RegistrySnapshot
      expect(value.tools, name).toEqual([])
      expect(value.listeners, name).toEqual([])
      expect(value.guards, name).toEqual([])
      expect(value.plugins, name).toEqual([])
    }
  })

  it('refuses bad filters before anything runs', async () => {
    const k = await kernel()
    for (const args of [{ section: 'secrets' }, { section: '__proto__' }, { name: '' }, { name: 5 }, { extra: true }]) {
      const result = await k.call(TOOL_NAME, args)
      expect(result.error?.code, JSON.stringify(args)).toBe('INVALID_ARGS')
    }
    expect(() => filterSnapshot(snapshot(k.ctx), { section: 'secrets' as any })).toThrow(/unknown section "secrets"/)
  })

  it('is read-only: the snapshot is the same before and after calls, filtered or not', async () => {
    const k = await kernel()
    await k.ctx.sandbox.probe()
    const before = snapshot(k.ctx)
    for (const args of [{}, { section: 'plugins' }, { name: 'deny-pattern' }, { section: 'sandbox' }]) {
      expect((await k.call(TOOL_NAME, args)).isError).toBe(false)
    }
    expect(snapshot(k.ctx)).toEqual(before)
  })

  it('goes through every gate: a guard can deny it, and a denied call shows nothing', async () => {
    const k = await kernel()
    k.ctx.plugin({ name: 'no-inspect', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.guard((exec) => (exec.name === TOOL_NAME ? 'no inspection here' : undefined)) } })
    const result = await k.call(TOOL_NAME, {})
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED' } })
    expect(result.value).toBeUndefined()
    expect(JSON.stringify(result.content)).not.toContain('deny-pattern')
  })

  it('under code mode a model-direct call is collapsed to UNKNOWN_TOOL, like every native tool', async () => {
    k = await createTestKernel({ tools: { mode: 'code' }, plugins: { 'tool-cordis': {} } })
    expect((await k.call(TOOL_NAME, {})).error?.code).toBe('UNKNOWN_TOOL')
  })

  it('disposing the plugin removes the tool', async () => {
    k = await createTestKernel()
    const fork = k.ctx.plugin(ToolCordis, {})
    expect((await k.call(TOOL_NAME, {})).isError).toBe(false)
    fork.dispose()
    expect((await k.call(TOOL_NAME, {})).error?.code).toBe('UNKNOWN_TOOL')
    expect(snapshot(k.ctx).tools.map((t) => t.name)).not.toContain(TOOL_NAME)
  })

  it('keeps working across a reload that replaces the approval service, and shows the new policy', async () => {
    const k = await kernel()
    expect(((await k.call(TOOL_NAME, { section: 'approval' })).value as any).approval.policy).toBe('ask')
    await k.reload({ approval: { policy: 'never' }, plugins: { [echo]: {}, [deny]: { tool: 'echo', pattern: '^rm ' }, 'tool-cordis': {} } })
    const after = await k.call(TOOL_NAME, { section: 'approval' })
    expect(after.isError).toBe(false)
    expect((after.value as any).approval.policy).toBe('never')
    expect(snapshot(k.ctx).tools.filter((t) => t.name === TOOL_NAME)).toHaveLength(1)
  })

  it('rejects an unknown config key', async () => {
    const error = await createTestKernel({ plugins: { 'tool-cordis': { verbose: true } } }).catch((e) => e)
    expect(error.message).toMatch(/tool-cordis.*verbose/)
  })
})
