import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KernelError } from '@dsh/kernel'
import type { ContentBlock } from '@dsh/tools'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { echoTool, parseSpill, registerTools, spillEvents } from './helpers.js'

let k: TestKernel | undefined
const extraDirs: string[] = []
afterEach(async () => {
  await k?.cleanup()
  k = undefined
  for (const dir of extraDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const holder: { output: string | ContentBlock[] } = { output: '' }

async function kernel(config: Record<string, unknown> = {}, dataDir?: string) {
  k = await createTestKernel({ ...(dataDir ? { dataDir } : {}), plugins: { 'spill-policy': config } })
  registerTools(k, echoTool('emit', holder))
  return k
}

function expectUntouched(result: { isError: boolean; content: ContentBlock[] }, text: string) {
  expect(result.isError).toBe(false)
  expect(result.content).toEqual([{ type: 'text', text }])
}

describe('a spill that cannot be written leaves the content in place and says why', () => {
  it('the spill directory\'s parent is a regular file', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    writeFileSync(join(k.dir, '.dsh', 'spill'), 'not a directory')
    holder.output = 'u'.repeat(5000)
    const result = await k.call('emit', {}, { callId: 'c1' })
    expectUntouched(result, 'u'.repeat(5000))
    const [failed] = spillEvents(k, 'spill/failed')
    expect(failed).toMatchObject({ callId: 'c1', bytes: 5000 })
    expect(failed.reason).toMatch(/cannot create the spill directory .*\.dsh\/spill\/test: .*(ENOTDIR|EEXIST)/)
    expect(spillEvents(k, 'spill/written')).toHaveLength(0)
  })

  it('twin: with a real directory the same call spills', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    holder.output = 'u'.repeat(5000)
    expect(parseSpill(await k.call('emit')).bytes).toBe(5000)
    expect(spillEvents(k, 'spill/failed')).toHaveLength(0)
  })

  it('a symlink planted at the session\'s spill directory is refused, and nothing is written where it points', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    const elsewhere = mkdtempSync(join(tmpdir(), 'dsh-elsewhere-'))
    extraDirs.push(elsewhere)
    mkdirSync(join(k.dir, '.dsh', 'spill'), { recursive: true })
    symlinkSync(elsewhere, join(k.dir, '.dsh', 'spill', 'test'))
    holder.output = 's'.repeat(5000)
    expectUntouched(await k.call('emit'), 's'.repeat(5000))
    expect(spillEvents(k, 'spill/failed')[0].reason).toMatch(/is not a directory/)
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it('a symlink planted at the spill root is refused too', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    const elsewhere = mkdtempSync(join(tmpdir(), 'dsh-elsewhere-'))
    extraDirs.push(elsewhere)
    symlinkSync(elsewhere, join(k.dir, '.dsh', 'spill'))
    holder.output = 's'.repeat(5000)
    expectUntouched(await k.call('emit'), 's'.repeat(5000))
    expect(spillEvents(k, 'spill/failed')[0].reason).toMatch(/spill is not a directory/)
    // checked before anything is created below it
    expect(readdirSync(elsewhere)).toEqual([])
  })

  const canMount = (() => {
    if (process.getuid?.() !== 0) return false
    const probe = mkdtempSync(join(tmpdir(), 'dsh-mount-probe-'))
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', probe], { stdio: 'ignore' })
      execFileSync('umount', [probe], { stdio: 'ignore' })
      return true
    } catch {
      return false
    } finally {
      rmSync(probe, { recursive: true, force: true })
    }
  })()

  it.skipIf(!canMount)('a full disk (a 16 KiB tmpfs): the partial file is removed', async () => {
    const k = await kernel({ maxInlineBytes: 1024 })
    const spillRoot = join(k.dir, '.dsh', 'spill')
    mkdirSync(spillRoot, { recursive: true })
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', spillRoot])
    try {
      holder.output = 'f'.repeat(256 * 1024)
      expectUntouched(await k.call('emit', {}, { callId: 'full' }), 'f'.repeat(256 * 1024))
      const [failed] = spillEvents(k, 'spill/failed')
      expect(failed).toMatchObject({ callId: 'full', bytes: 256 * 1024 })
      expect(failed.reason).toMatch(/cannot write the spill file .*full\.txt: .*ENOSPC/)
      expect(readdirSync(join(spillRoot, 'test'))).toEqual([])
      // twin: a text that fits on the same small disk is spilled
      holder.output = 'g'.repeat(4000)
      expect(parseSpill(await k.call('emit', {}, { callId: 'fits' })).bytes).toBe(4000)
    } finally {
      execFileSync('umount', ['-l', spillRoot])
    }
  })

  it('a data directory so deep that the reference alone exceeds maxInlineBytes: nothing replaced, no file left', async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-deep-'))
    extraDirs.push(base)
    const deep = join(base, 'a'.repeat(200), 'b'.repeat(200), 'c'.repeat(200))
    const k = await kernel({ maxInlineBytes: 1024 }, deep)
    holder.output = 'd'.repeat(5000)
    expectUntouched(await k.call('emit'), 'd'.repeat(5000))
    expect(spillEvents(k, 'spill/failed')[0].reason).toMatch(/maxInlineBytes 1024 cannot hold a preview and the reference/)
    expect(readdirSync(join(deep, 'spill', 'test'))).toEqual([])
  })

  it('twin: the same depth with a larger limit spills', async () => {
    const base = mkdtempSync(join(tmpdir(), 'dsh-deep-'))
    extraDirs.push(base)
    const deep = join(base, 'a'.repeat(200), 'b'.repeat(200), 'c'.repeat(200))
    const k = await kernel({ maxInlineBytes: 4096 }, deep)
    holder.output = 'd'.repeat(5000)
    const spill = parseSpill(await k.call('emit'))
    expect(spill.inline).toBeLessThanOrEqual(4096)
    expect(existsSync(spill.path)).toBe(true)
  })
})

describe('invalid configs fail at load, naming the path and the bad value', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['a negative size', { maxInlineBytes: -1 }, /\$\.maxInlineBytes.*-1/],
    ['a size below the minimum', { maxInlineBytes: 512 }, /\$\.maxInlineBytes.*>= 1024.*512/],
    ['a fractional size', { maxInlineBytes: 2048.5 }, /\$\.maxInlineBytes.*2048\.5/],
    ['a string size', { maxInlineBytes: '16k' }, /\$\.maxInlineBytes.*16k/],
    ['an infinite size', { maxInlineBytes: Infinity }, /\$\.maxInlineBytes.*Infinity/],
    ['an exempt list that is a string', { exempt: 'read' }, /\$\.exempt.*read/],
    ['an exempt entry that is a number', { exempt: ['read', 7] }, /\$\.exempt\[1\].*7/],
    ['an unknown key', { maxInline: 100 }, /unknown key maxInline/],
  ]
  for (const [what, config, message] of bad) {
    it(`refuses ${what}`, async () => {
      const error = await createTestKernel({ plugins: { 'spill-policy': config } }).then(
        (kernel) => { k = kernel; return undefined },
        (e: unknown) => e,
      )
      expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
      expect((error as Error).message).toMatch(/spill-policy/)
      expect((error as Error).message).toMatch(message)
    })
  }

  it('twin: an empty config loads with the defaults', async () => {
    k = await createTestKernel({ plugins: { 'spill-policy': {} } })
    expect(k.plugins()[0].config).toEqual({ maxInlineBytes: 16384, exempt: ['read'] })
  })
})
