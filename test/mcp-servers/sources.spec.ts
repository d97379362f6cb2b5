// sources: servers read from the clients' own files through
// @dsh/mcp-server-sources: the project's .mcp.json is read, `servers` wins over
// a source's server of the same name, `exclude` leaves one out, and a sourced
// server dsh cannot take is skipped with its file, never stopping the kernel.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { FIXTURE, kernelWith, text, toolNames } from './helpers.js'

let k: TestKernel | undefined

describe('mcp-servers: sources', () => {
  it('the project\'s .mcp.json is read; servers wins over it by name; exclude leaves one out', async () => {
    k = await kernelWith({ servers: {} })
    const server = { command: process.execPath, args: [FIXTURE] }
    fs.writeFileSync(path.join(k.dir, '.mcp.json'), JSON.stringify({ mcpServers: { fromfile: server, shadowed: { command: '/no/such/program' }, dropped: server } }))
    await k.reload({ ...k.options, plugins: { 'mcp-servers': { sources: ['mcp.json'], servers: { shadowed: server }, exclude: ['dropped'] } } } as any)
    const names = toolNames(k)
    expect(names).toContain('mcp__fromfile__echo')
    expect(names).toContain('mcp__shadowed__echo')
    expect(names.some((n) => n.startsWith('mcp__dropped__'))).toBe(false)
    expect(text(await k.call('mcp__fromfile__echo', { text: 'from the file' }))).toBe('from the file')
  })

  it('a sourced server whose name cannot be part of a tool name is skipped with its file; the others run', async () => {
    k = await kernelWith({ servers: {} })
    const server = { command: process.execPath, args: [FIXTURE] }
    fs.writeFileSync(path.join(k.dir, '.mcp.json'), JSON.stringify({ mcpServers: { 'bad.name': server, good: server } }))
    await k.reload({ ...k.options, plugins: { 'mcp-servers': { sources: ['mcp.json'] } } } as any)
    expect(toolNames(k).some((n) => n.startsWith('mcp__good__'))).toBe(true)
    expect(toolNames(k).some((n) => n.includes('bad'))).toBe(false)
  })
})
