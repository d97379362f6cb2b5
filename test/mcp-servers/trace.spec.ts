// An upstream tool's call is traced like any other: the otel plugin's span
// `execute_tool mcp__<server>__<tool>`, with the sandbox that confined the server;
// a denied one carries the error.
import { afterEach, describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { recordSpans, type Recorder } from '../otel/helpers.js'
import { fixtureServer, kernelWith, stop } from './helpers.js'

let k: TestKernel | undefined
let rec: Recorder | undefined
afterEach(async () => {
  if (k) await stop(k)
  k = undefined
  await rec?.shutdown()
  rec = undefined
})

describe('mcp-servers: traces', () => {
  it('one span per upstream call, named for the mcp__ tool', async () => {
    rec = recordSpans()
    k = await kernelWith({ servers: { fix: fixtureServer() }, plugins: { otel: {}, 'claude-code-permissions': { settingsFiles: [], permissions: { deny: ['mcp__fix__read_file'], allow: ['mcp__fix__echo'] } } } })
    await k.call('mcp__fix__echo', { text: 'x' }, { callId: 't1' })
    await k.call('mcp__fix__read_file', { path: '/etc/hostname' }, { callId: 't2' })
    const ok = rec.span('t1')
    expect(ok.name).toBe('execute_tool mcp__fix__echo')
    expect(ok.attributes['gen_ai.tool.name']).toBe('mcp__fix__echo')
    expect(ok.attributes['dsh.sandbox.backend']).toBeTruthy()
    const denied = rec.span('t2')
    expect(denied.attributes['error.type']).toBe('DENIED')
  })
})
