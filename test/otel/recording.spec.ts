/**
 * What a span holds beyond the conventions' names: arguments and results
 * only when configured, cut to maxAttributeBytes; the sandbox a call ran in;
 * the config checked at load.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { cutToBytes } from '@dsh/otel'
import { cleanup, otelTestTools, recordSpans, tracked, type Recorder } from './helpers.js'

let k: TestKernel | undefined
let rec: Recorder | undefined
afterEach(cleanup)

async function kernel(config: Record<string, unknown> = {}, plugins: Record<string, unknown> = {}) {
  rec = recordSpans()
  k = tracked(await createTestKernel({ plugins: { otel: config, ...plugins } }))
  k.ctx.plugin({ name: 'otel-test-tools', inject: ['tools'], apply: (ctx: Context) => otelTestTools(ctx) })
  return k
}

describe('otel: arguments and results', () => {
  it('records neither by default, nor an error\'s message (they can hold secrets)', async () => {
    await kernel()
    await k!.call('echo', { text: 'password=hunter2' }, { callId: 'r1' })
    await k!.call('boom', {}, { callId: 'r2' })
    for (const id of ['r1', 'r2']) {
      const span = rec!.span(id)
      expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined()
      expect(span.attributes['gen_ai.tool.call.result']).toBeUndefined()
      expect(JSON.stringify([span.name, span.attributes, span.events, span.status])).not.toContain('hunter2')
    }
    expect(rec!.span('r2').status.message).toBe('TOOL_FAILED')
  })

  it('records arguments, values, text and error messages when configured', async () => {
    await kernel({ recordArguments: true, recordResults: true })
    await k!.call('echo', { text: 'hello' }, { callId: 'v1' })
    await k!.call('boom', {}, { callId: 'v2' })
    expect(rec!.span('v1').attributes).toMatchObject({ 'gen_ai.tool.call.arguments': '{"text":"hello"}', 'gen_ai.tool.call.result': '"hello"' })
    expect(rec!.span('v2').attributes['gen_ai.tool.call.result']).toBe('boom failed: the body failed')
    expect(rec!.span('v2').status.message).toBe('boom failed: the body failed')
    expect(rec!.span('v2').attributes['dsh.truncated']).toBeUndefined()
  })

  it('cuts each to maxAttributeBytes on a character boundary and names what it cut', async () => {
    await kernel({ recordArguments: true, recordResults: true, maxAttributeBytes: 16 })
    const text = 'é'.repeat(40)
    await k!.call('echo', { text }, { callId: 't1' })
    const span = rec!.span('t1')
    const args = span.attributes['gen_ai.tool.call.arguments'] as string
    const result = span.attributes['gen_ai.tool.call.result'] as string
    expect(args).toBe('{"text":"ééé')
    expect(Buffer.byteLength(args)).toBeLessThanOrEqual(16)
    expect(result).toBe('"' + 'é'.repeat(7))
    expect(span.attributes['dsh.truncated']).toEqual(['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'])
    await k!.call('boom', {}, { callId: 't2' })
    expect(rec!.span('t2').status.message).toBe('boom failed: the')
    expect(rec!.span('t2').attributes['dsh.truncated']).toEqual(['gen_ai.tool.call.result', 'otel.status_description'])
  })

  it('cuts text by UTF-8 bytes, never inside a character', () => {
    expect(cutToBytes('short', 10)).toBeUndefined()
    expect(cutToBytes('abcdef', 3)).toBe('abc')
    expect(cutToBytes('a€b', 3)).toBe('a')
    expect(cutToBytes('a€b', 4)).toBe('a€')
    expect(cutToBytes('😀😀', 5)).toBe('😀')
    expect(cutToBytes('😀', 3)).toBe('')
    for (const s of ['x'.repeat(2000), 'ü'.repeat(700), '😀'.repeat(300)]) {
      const cut = cutToBytes(s, 1024)!
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1024)
      expect(Buffer.byteLength(cut)).toBeGreaterThan(1020)
      expect(s.startsWith(cut)).toBe(true)
    }
  })
})

describe('otel: the sandbox of a call', () => {
  it('records the backend, the enforcement and what it did not enforce, for bash and the file tools', async () => {
    await kernel({}, { 'workspace-tools': {} })
    writeFileSync(join(k!.dir, 'note.txt'), 'a note\n')
    await k!.ctx.sandbox.probe()
    const chosen = k!.ctx.sandbox.status().chosen
    const result = await k!.call('bash', { command: 'echo hi' }, { callId: 's1' })
    const span = rec!.span('s1')
    if (chosen) {
      expect(result.isError).toBe(false)
      const event = k!.session.events().find((e) => e.type === 'tool/result' && (e.data as any).callId === 's1')!.data as any
      expect(span.attributes).toMatchObject({
        'dsh.sandbox.backend': chosen,
        'dsh.sandbox.enforcement': event.sandbox.enforcement,
        'dsh.sandbox.unenforced': event.sandbox.unenforced,
      })
      expect(['full', 'partial']).toContain(span.attributes['dsh.sandbox.enforcement'])
    } else {
      // no backend on this machine: the call fails closed, and the span says so
      expect(result.error?.code).toBe('SANDBOX_UNAVAILABLE')
      expect(span.attributes['error.type']).toBe('SANDBOX_UNAVAILABLE')
      expect(span.attributes['dsh.sandbox.backend']).toBeUndefined()
    }
    await k!.call('read', { file_path: join(k!.dir, 'note.txt') }, { callId: 's2' })
    expect(rec!.span('s2').attributes).toMatchObject({ 'dsh.sandbox.backend': 'in-process', 'dsh.sandbox.mode': 'read-only' })
    // a refused write: in-process, nothing written
    const write = await k!.call('write', { file_path: join(k!.dir, 'new.txt'), content: 'x' }, { callId: 's3' })
    expect(write.isError).toBe(true)
    expect(rec!.span('s3').attributes['error.type']).toBe(write.error!.code)
  })
})

describe('otel: config', () => {
  it('refuses an unknown key and a size below one byte, naming the key', async () => {
    await expect(createTestKernel({ plugins: { otel: { recordArgs: true } } })).rejects.toThrow(/otel.*recordArgs/)
    await expect(createTestKernel({ plugins: { otel: { maxAttributeBytes: 0 } } })).rejects.toThrow(/otel.*maxAttributeBytes/)
    await expect(createTestKernel({ plugins: { otel: { tracerName: '' } } })).rejects.toThrow(/otel.*tracerName/)
  })

  it('names its tracer as configured', async () => {
    await kernel({ tracerName: 'my-agent-tools' })
    await k!.call('echo', { text: 'x' }, { callId: 'n1' })
    expect(rec!.span('n1').instrumentationScope).toMatchObject({ name: 'my-agent-tools', version: '0.1.0' })
  })
})
