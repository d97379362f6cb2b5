import { afterEach, describe, expect, it, vi } from 'vitest'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as SpillPolicy from '@dsh/spill-policy'
import type { ContentBlock } from '@dsh/tools'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { echoTool, parseSpill, registerTools, spillEvents } from './helpers.js'

const byteLength = Buffer.byteLength

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const holder: { output: string | ContentBlock[] } = { output: '' }

async function kernel(config: Record<string, unknown> = {}) {
  k = await createTestKernel({ plugins: { 'spill-policy': config } })
  registerTools(k, echoTool('emit', holder), echoTool('read', holder), echoTool('cat', holder),
    testTool('fail', () => { throw new Error(`E${'x'.repeat(40_000)}`) }))
  return k
}

const spillDirOf = (k: TestKernel) => join(k.dir, '.dsh', 'spill', 'test')

describe('text over maxInlineBytes', () => {
  it('is written whole to a 0600 file under the session\'s data directory and replaced by a preview and a reference', async () => {
    const k = await kernel()
    const text = Array.from({ length: 5_000 }, (_, i) => `line ${i}: ${'abcdefghij'.repeat(3)}`).join('\n')
    holder.output = text
    const result = await k.call('emit', {}, { callId: 'big-1' })
    expect(result.isError).toBe(false)
    const spill = parseSpill(result)
    expect(spill.path).toBe(join(spillDirOf(k), 'big-1.txt'))
    expect(isAbsolute(spill.path)).toBe(true)
    expect(readFileSync(spill.path, 'utf8')).toBe(text)
    expect(statSync(spill.path).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(spill.path)).mode & 0o777).toBe(0o700)
    expect(spill.bytes).toBe(Buffer.byteLength(text))
    expect(spill.link).toEqual({ type: 'resource_link', uri: pathToFileURL(spill.path).href, name: 'big-1.txt', mimeType: 'text/plain' })
    expect(spill.inline).toBeLessThanOrEqual(16 * 1024)
    expect(spill.inline).toBeGreaterThan(15 * 1024) // the budget is used, not wasted
    expect(text.startsWith(spill.head)).toBe(true)
    expect(text.endsWith(spill.tail)).toBe(true)
    expect(Buffer.byteLength(spill.head) + spill.omitted + Buffer.byteLength(spill.tail)).toBe(spill.bytes)
    expect(spillEvents(k, 'spill/written')).toEqual([{ callId: 'big-1', path: spill.path, bytes: spill.bytes }])
    // the audit log holds the preview, not the whole text
    const logged = k.session.events().find((e) => e.type === 'tool/result' && (e.data as any).callId === 'big-1')!
    expect((logged.data as any).content).toEqual(result.content)
  })

  it('twin: text of exactly maxInlineBytes stays inline; one byte more is spilled', async () => {
    const k = await kernel({ maxInlineBytes: 2048 })
    holder.output = 'a'.repeat(2048)
    const exact = await k.call('emit')
    expect(exact.content).toEqual([{ type: 'text', text: 'a'.repeat(2048) }])
    holder.output = 'a'.repeat(2049)
    expect(() => parseSpill(exact)).toThrow()
    const over = await k.call('emit')
    expect(parseSpill(over).bytes).toBe(2049)
    expect(spillEvents(k, 'spill/written')).toHaveLength(1)
  })

  it('measures UTF-8 bytes, not string length', async () => {
    const k = await kernel({ maxInlineBytes: 16_384 })
    holder.output = 'é'.repeat(8_000) // 16,000 bytes: fits
    expect((await k.call('emit')).content).toEqual([{ type: 'text', text: 'é'.repeat(8_000) }])
    holder.output = 'é'.repeat(8_200) // 16,400 bytes, though only 8,200 characters
    expect(parseSpill(await k.call('emit')).bytes).toBe(16_400)
  })

  it('short text is settled from its length alone; only text near the limit is encoded to measure it', async () => {
    const k = await kernel({ maxInlineBytes: 3000 })
    const measured: string[] = []
    const spy = vi.spyOn(Buffer, 'byteLength').mockImplementation(function (this: unknown, ...args: any[]) {
      if (typeof args[0] === 'string') measured.push(args[0])
      return byteLength.apply(Buffer, args as any)
    } as any)
    try {
      holder.output = 's'.repeat(1000) // 3 × 1000 ≤ 3000: cannot be over
      await k.call('emit')
      expect(measured.filter((t) => t.startsWith('sss'))).toEqual([])
      holder.output = 't'.repeat(2000) // 3 × 2000 > 3000 ≥ 2000: must be measured
      await k.call('emit')
      expect(measured.filter((t) => t.startsWith('ttt'))).toHaveLength(1)
    } finally {
      spy.mockRestore()
    }
  })

  it('counts all text blocks together, keeps non-text blocks in order, and writes the texts joined by newlines', async () => {
    const k = await kernel({ maxInlineBytes: 4096 })
    const image: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }
    const link: ContentBlock = { type: 'resource_link', uri: 'file:///etc/hostname', name: 'hostname' }
    holder.output = [{ type: 'text', text: 'A'.repeat(3000) }, image, { type: 'text', text: 'B'.repeat(3000) }, link]
    const result = await k.call('emit')
    const spill = parseSpill(result)
    expect(spill.others).toEqual([image, link])
    expect(readFileSync(spill.path, 'utf8')).toBe(`${'A'.repeat(3000)}\n${'B'.repeat(3000)}`)
    expect(spill.inline).toBeLessThanOrEqual(4096)
  })

  it('twin: non-text blocks alone are never spilled, however large', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    const image: ContentBlock = { type: 'image', data: 'A'.repeat(100_000), mimeType: 'image/png' }
    holder.output = [image, { type: 'text', text: 'small' }]
    expect((await k.call('emit')).content).toEqual([image, { type: 'text', text: 'small' }])
    expect(spillEvents(k, 'spill/written')).toHaveLength(0)
  })

  it('spills an error result and keeps it an error with its code', async () => {
    const k = await kernel({ maxInlineBytes: 2048 })
    const result = await k.call('fail')
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('TOOL_FAILED')
    const spill = parseSpill(result)
    // the message as the pipeline made it: an error's text is cut at 16 KiB (ERROR_TEXT_LIMIT), saying how much was left out
    expect(readFileSync(spill.path, 'utf8')).toMatch(/^fail failed: Ex{16370}… \(\d+ more characters left out\)$/)
  })
})

describe('what is not spilled', () => {
  it('the read tool (exempt by default), and whatever the exempt list names instead', async () => {
    const k1 = await kernel({ maxInlineBytes: 1024 })
    holder.output = 'r'.repeat(5000)
    expect((await k1.call('read')).content).toEqual([{ type: 'text', text: 'r'.repeat(5000) }])
    expect(parseSpill(await k1.call('cat')).bytes).toBe(5000)
    await k1.cleanup()
    const k2 = await kernel({ maxInlineBytes: 1024, exempt: ['cat'] })
    expect((await k2.call('cat')).content).toEqual([{ type: 'text', text: 'r'.repeat(5000) }])
    expect(parseSpill(await k2.call('read')).bytes).toBe(5000)
  })

  it('nested code-mode sub-calls; twin: the same call made directly is spilled', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    holder.output = 'n'.repeat(5000)
    const parent = k.ctx.tools.issueParentToken('run-1')
    const nested = await k.call('emit', {}, { parent })
    expect(nested.content).toEqual([{ type: 'text', text: 'n'.repeat(5000) }])
    expect(spillEvents(k, 'spill/written')).toHaveLength(0)
    const direct = await k.call('emit')
    expect(parseSpill(direct).bytes).toBe(5000)
  })

  it('a result another listener blocked', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    k.ctx.plugin({ name: 'blocker', apply: (ctx) => { ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: 'withheld' })) } })
    holder.output = 'b'.repeat(5000)
    expect((await k.call('emit')).error).toMatchObject({ code: 'BLOCKED', message: 'withheld' })
    expect(spillEvents(k, 'spill/written')).toHaveLength(0)
  })

  it('anything once the plugin is disposed', async () => {
    k = await createTestKernel()
    registerTools(k, echoTool('emit', holder))
    const fork = k.ctx.plugin(SpillPolicy, { maxInlineBytes: 1024, exempt: [] })
    holder.output = 'd'.repeat(5000)
    expect(parseSpill(await k.call('emit')).bytes).toBe(5000)
    fork.dispose()
    expect((await k.call('emit')).content).toEqual([{ type: 'text', text: 'd'.repeat(5000) }])
  })
})

describe('call ids are hostile input', () => {
  const hostile = ['../../escape', '/etc/passwd', '..', '.', '', 'a/../../b', 'a\u0000b', 'x'.repeat(5000), '__proto__', 'über-ü', 'con', '-rf', 'a b\nc']
  it('every spill file lands in the session\'s spill directory under a safe, distinct name', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    holder.output = 'h'.repeat(3000)
    const paths = new Set<string>()
    for (const callId of hostile) {
      const spill = parseSpill(await k.call('emit', {}, { callId }))
      expect(dirname(spill.path), JSON.stringify(callId)).toBe(spillDirOf(k))
      expect(spill.link.name).toMatch(/^[A-Za-z0-9_-]{1,80}(\.\d+)?\.txt$/)
      paths.add(spill.path)
    }
    expect(paths.size).toBe(hostile.length)
    expect(readdirSync(spillDirOf(k)).length).toBe(hostile.length)
    // nothing anywhere else under the kernel's directory
    const all = readdirSync(k.dir, { recursive: true }) as string[]
    expect(all.filter((p) => p.endsWith('.txt')).every((p) => p.startsWith(join('.dsh', 'spill', 'test')))).toBe(true)
  })

  it('a repeated call id gets a new file instead of overwriting the first', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    holder.output = '1'.repeat(3000)
    const first = parseSpill(await k.call('emit', {}, { callId: 'same' }))
    holder.output = '2'.repeat(3000)
    const second = parseSpill(await k.call('emit', {}, { callId: 'same' }))
    expect(second.path).not.toBe(first.path)
    expect(second.path).toBe(join(spillDirOf(k), 'same.1.txt'))
    expect(readFileSync(first.path, 'utf8')).toBe('1'.repeat(3000))
    expect(readFileSync(second.path, 'utf8')).toBe('2'.repeat(3000))
  })
})
