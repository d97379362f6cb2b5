import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import * as SpillPolicy from '@dsh/spill-policy'
import { headCut, preview, tailCut } from '@dsh/spill-policy'
import type { ContentBlock } from '@dsh/tools'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { echoTool, parseSpill, registerTools } from './helpers.js'

// a string is well-formed UTF-16 exactly when it survives a UTF-8 round trip (a lone surrogate becomes U+FFFD)
const roundTrip = (s: string) => Buffer.from(s, 'utf8').toString('utf8')
const wellFormed = (s: string) => roundTrip(s) === s
const isBoundary = (bytes: Buffer, i: number) => i === 0 || i === bytes.length || (bytes[i] & 0xc0) !== 0x80
// 1-, 2-, 3- and 4-byte characters; the emoji is a surrogate pair in JS
const MIX = 'a' + 'é' + '中' + '😀' + 'Я' + '🧪' + 'の' + 'z'

describe('cut positions (every index)', () => {
  const bytes = Buffer.from(MIX.repeat(4))

  it('headCut gives the longest prefix within the limit that ends on a character boundary', () => {
    for (let max = 0; max <= bytes.length + 2; max++) {
      const end = headCut(bytes, max)
      expect(end).toBeLessThanOrEqual(Math.min(max, bytes.length))
      expect(isBoundary(bytes, end)).toBe(true)
      // longest: no boundary between end and max
      for (let i = end + 1; i <= Math.min(max, bytes.length); i++) expect(isBoundary(bytes, i)).toBe(false)
      expect(bytes.toString('utf8', 0, end)).toBe(MIX.repeat(4).slice(0, bytes.toString('utf8', 0, end).length))
    }
  })

  it('tailCut gives the longest suffix within the limit that starts on a character boundary', () => {
    for (let max = 0; max <= bytes.length + 2; max++) {
      const start = tailCut(bytes, max)
      expect(bytes.length - start).toBeLessThanOrEqual(max)
      expect(isBoundary(bytes, start)).toBe(true)
      for (let i = Math.max(0, bytes.length - max); i < start; i++) expect(isBoundary(bytes, i)).toBe(false)
      expect(MIX.repeat(4).endsWith(bytes.toString('utf8', start))).toBe(true)
    }
  })

  it('preview stays within every budget and never holds a replacement character or a lone surrogate', () => {
    const long = Buffer.from(MIX.repeat(50))
    for (let budget = 0; budget <= 200; budget++) {
      const shown = preview(long, budget)
      if (!shown) {
        expect(budget).toBeLessThan(Buffer.byteLength(`\n[... ${long.length} bytes omitted ...]\n`))
        continue
      }
      expect(Buffer.byteLength(shown.text)).toBeLessThanOrEqual(budget)
      expect(wellFormed(shown.text)).toBe(true)
      expect(shown.text).not.toContain('\ufffd')
    }
  })
})

describe('through the pipeline', () => {
  let k: TestKernel
  const holder: { output: string | ContentBlock[] } = { output: '' }
  const forks: Array<{ dispose(): unknown }> = []
  beforeAll(async () => {
    k = await createTestKernel()
    registerTools(k, echoTool('emit', holder))
  })
  afterAll(() => k.cleanup())

  async function spillWith(max: number, text: string) {
    const fork = k.ctx.plugin(SpillPolicy, { maxInlineBytes: max, exempt: [] })
    forks.push(fork)
    try {
      holder.output = text
      return await k.call('emit')
    } finally {
      fork.dispose()
    }
  }

  function check(max: number, text: string, result: Awaited<ReturnType<typeof spillWith>>) {
    const original = roundTrip(text)
    const spill = parseSpill(result)
    expect(spill.inline).toBeLessThanOrEqual(max)
    const inline = (result.content[0] as { text: string }).text
    expect(wellFormed(inline)).toBe(true)
    expect(original.startsWith(spill.head)).toBe(true)
    expect(original.endsWith(spill.tail)).toBe(true)
    expect(Buffer.byteLength(spill.head) + spill.omitted + Buffer.byteLength(spill.tail)).toBe(spill.bytes)
    expect(readFileSync(spill.path, 'utf8')).toBe(original)
  }

  it('at every alignment of the cut against 1- to 4-byte characters', async () => {
    // 12 consecutive limits move both cuts through every byte offset of the 2-, 3- and 4-byte characters
    for (let max = 1024; max < 1024 + 12; max++) {
      const text = MIX.repeat(400)
      check(max, text, await spillWith(max, text))
    }
  })

  it('property: any text (CJK, emoji, astral planes) keeps preview + reference within the limit, valid, head a prefix, tail a suffix', async () => {
    const unit = fc.oneof(
      fc.constantFrom('a', 'é', '中', '😀', '👩‍👩‍👧', '\n', 'ｱ', '𝄞'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 2 }),
    )
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1024, max: 3000 }),
      fc.array(unit, { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 4 }),
      async (max, units, factor) => {
        // long enough to need a spill: the units repeated past the limit
        const seed = units.join('')
        const text = seed.repeat(Math.ceil((max * factor + 1) / Buffer.byteLength(seed)))
        check(max, text, await spillWith(max, text))
      },
    ), { numRuns: 150 })
  })

  it('a lone surrogate is written as U+FFFD (UTF-8 cannot hold it) and the preview stays well-formed', async () => {
    const text = `${'x'.repeat(1500)}\ud800${'y'.repeat(1500)}\udc00`
    const result = await spillWith(1024, text)
    check(1024, text, result)
    expect(readFileSync(parseSpill(result).path, 'utf8')).toContain('\ufffd')
  })
})
