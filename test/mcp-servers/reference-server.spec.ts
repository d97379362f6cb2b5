// A published reference server, installed from npm and used unmodified
// (@modelcontextprotocol/server-memory): confined, its tools under mcp__mem__,
// and under code mode one run_code program chaining two of its tools and
// returning only a summary.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { kernelWith, reachableScript, text, toolNames } from './helpers.js'

const require = createRequire(import.meta.url)
// (from a checkout under /tmp, bundled into one file a confined server can read: reachableScript)
const MEMORY = reachableScript(path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist/index.js'))

let k: TestKernel | undefined

const memory = (file: string, mode = 'workspace-write') => ({ mem: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: file }, sandbox: { mode } } })

describe('mcp-servers: @modelcontextprotocol/server-memory', () => {
  it('its tools are mcp__mem__*, and a write lands in the workspace file it was given', async () => {
    k = await kernelWith({ servers: {} })
    const file = path.join(k.dir, 'memory.jsonl')
    await k.reload({ ...k.options, plugins: { 'mcp-servers': { servers: memory(file) } } } as any)
    expect(toolNames(k)).toEqual(expect.arrayContaining(['mcp__mem__create_entities', 'mcp__mem__read_graph', 'mcp__mem__search_nodes']))
    const created = await k.call('mcp__mem__create_entities', { entities: [{ name: 'dsh', entityType: 'project', observations: ['runs MCP servers confined'] }] })
    expect(created.isError, text(created)).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toContain('"dsh"')
    const graph = await k.call('mcp__mem__read_graph', {})
    expect(text(graph)).toContain('runs MCP servers confined')
  })

  it('read-only: the same write is refused by the sandbox and nothing is written', async () => {
    k = await kernelWith({ servers: {} })
    const file = path.join(k.dir, 'memory.jsonl')
    await k.reload({ ...k.options, plugins: { 'mcp-servers': { servers: memory(file, 'read-only') } } } as any)
    const created = await k.call('mcp__mem__create_entities', { entities: [{ name: 'x', entityType: 'y', observations: [] }] })
    expect(created.isError).toBe(true)
    expect(created.error?.message).toMatch(/EROFS|EACCES|EPERM/)
    expect(fs.existsSync(file)).toBe(false)
  })

  it('code mode: one program chains two upstream tools and returns only a summary', async () => {
    k = await kernelWith({ servers: {} })
    const file = path.join(k.dir, 'memory.jsonl')
    await k.reload({ ...k.options, tools: { mode: 'code' }, plugins: { 'mcp-servers': { servers: memory(file) } } } as any)
    expect(k.ctx.tools.wireSchemas().map((s: { name: string }) => s.name)).toEqual(['run_code'])
    const code = `
      await tools.mcp__mem__create_entities({ entities: [{ name: 'a', entityType: 't', observations: ['one', 'two'] }, { name: 'b', entityType: 't', observations: ['three'] }] })
      const graph = await tools.mcp__mem__read_graph({})
      return { entities: graph.entities.length, observations: graph.entities.reduce((n, e) => n + e.observations.length, 0) }
    `
    const r = await k.call('run_code', { code })
    expect(r.isError, text(r)).toBe(false)
    expect(r.value).toEqual({ entities: 2, observations: 3 })
    const dispatched = k.session.events().filter((e) => e.type === 'tool/call').map((e) => (e.data as any).name)
    expect(dispatched).toEqual(expect.arrayContaining(['run_code', 'mcp__mem__create_entities', 'mcp__mem__read_graph']))
  })
})
