// sources: servers read from the clients' own files through
// @dsh/mcp-server-sources. Where that package is installed, the project's
// .mcp.json is read, `servers` wins over a source's server of the same name,
// and `exclude` leaves one out; where it is not, a config naming a source is
// refused with the reason (never a silent empty set).
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { FIXTURE, kernelWith, stop, text, toolNames } from './helpers.js'

const installed = (() => {
  try {
    createRequire(import.meta.url).resolve('@dsh/mcp-server-sources')
    return true
  } catch {
    return false
  }
})()

let k: TestKernel | undefined
afterEach(async () => {
  if (k) await stop(k)
  k = undefined
})

describe('mcp-servers: sources', () => {
  it.skipIf(installed)('without @dsh/mcp-server-sources, a config naming a source is refused with the reason', async () => {
    await expect(kernelWith({ config: { sources: ['mcp.json'] } })).rejects.toThrow(/sources needs @dsh\/mcp-server-sources/)
  })

  it.skipIf(!installed)('the project\'s .mcp.json is read; servers wins over it by name; exclude leaves one out', async () => {
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
})
