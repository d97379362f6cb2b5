// A published reference server, installed from npm and used unmodified
// (@modelcontextprotocol/server-memory): confined, its tools under mcp__mem__,
// and under code mode one run_code program chaining two of its tools and
// returning only a summary.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { TestKernel } from 'dsh/testing'
import { kernelWith, reachableScript, text, toolNames } from './helpers.js'

const require = createRequire(import.meta.url)
// (from a checkout under /tmp, bundled into one file a confined server can read: reachableScript)
const MEMORY = reachableScript(path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist/index.js'))

let k: TestKernel | undefined

const memory = (file: string, mode = 'workspace-write') => ({ mem: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: file }, sandbox: { mode } } })

/** The server's own tools/list, from a client connected to it directly (unconfined, outside dsh). */
async function listedDirectly(file: string): Promise<Tool[]> {
  const client = new Client({ name: 'test', version: '1' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MEMORY], env: { ...process.env as Record<string, string>, MEMORY_FILE_PATH: file }, stderr: 'ignore' }))
  try {
    return (await client.listTools()).tools
  } finally {
    await client.close()
  }
}

/** The member of `declarations` for `name`: from its line to the `): Promise<unknown>` that ends it (no type inside holds that). */
function member(declarations: string, name: string): string | undefined {
  const start = declarations.indexOf(`\n  ${name}(args: `)
  return start < 0 ? undefined : declarations.slice(start, declarations.indexOf('): Promise<unknown>', start))
}

/** Every property of `schema`, nested ones included, as the declaration line it must have: `key: ` or `key?: ` at its depth. */
function propertyLines(schema: any, indent = '    '): string[] {
  const lines: string[] = []
  const required = new Set<string>(schema?.required ?? [])
  for (const [key, prop] of Object.entries<any>(schema?.properties ?? {})) {
    lines.push(`\n${indent}${key}${required.has(key) ? '' : '?'}: `)
    const inner = prop?.type === 'array' ? prop.items : prop
    if (inner?.type === 'object') lines.push(...propertyLines(inner, `${indent}  `))
  }
  return lines
}

describe('mcp-servers: @modelcontextprotocol/server-memory', () => {
  it('code mode: the SDK declarations (tools:sdk and run_code\'s description) hold every upstream tool with its schema', async () => {
    k = await kernelWith({ servers: {} })
    const file = path.join(k.dir, 'memory.jsonl')
    const upstream = await listedDirectly(file)
    expect(upstream.length).toBeGreaterThan(5)
    await k.reload({ ...k.options, tools: { mode: 'code' }, plugins: { 'mcp-servers': { servers: memory(file) } } } as any)
    const sdk = k.ctx.systemPrompt.sections().find((s: { id: string }) => s.id === 'tools:sdk')?.text ?? ''
    const runCode = k.ctx.tools.wireSchemas().find((s: { name: string }) => s.name === 'run_code')?.description ?? ''
    for (const declarations of [sdk, runCode]) {
      let checked = 0
      expect(declarations.match(/\n {2}mcp__mem__\w+\(args: /g)).toHaveLength(upstream.length)
      for (const tool of upstream) {
        const text = member(declarations, `mcp__mem__${tool.name}`)
        expect(text, `mcp__mem__${tool.name} is declared`).toBeDefined()
        // the description is the doc comment just before it
        const before = declarations.slice(0, declarations.indexOf(`\n  mcp__mem__${tool.name}(args: `))
        expect(before.slice(before.lastIndexOf('/**')), tool.name).toContain((tool.description ?? '').split('\n')[0]!.replace(/\*\//g, '*\\/'))
        for (const line of propertyLines(tool.inputSchema)) {
          expect(text, `${tool.name}: ${JSON.stringify(line)}`).toContain(line)
          checked++
        }
      }
      // nested ones too (create_entities: entities[].name, .observations)
      expect(checked).toBeGreaterThan(upstream.length * 2)
    }
  })


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
