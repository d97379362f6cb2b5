import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import * as ui from '@dsh/ui-approval'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import type { Context } from 'cordis'
import { results } from './tmux.js'

const fixture = join(import.meta.dirname, '../fixtures/ui-approval-terminal.mjs')

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

const listenerCount = (k: TestKernel) => ((k.ctx.root.lifecycle as any)._hooks['approval/request'] ?? []).length

/** A stream that claims to be a terminal (the plugin only reads `isTTY`). */
function ttyLike() {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean }
  stream.isTTY = true
  return stream
}

describe('ui-approval without a terminal', () => {
  for (const [what, streams] of [
    ['neither stream a TTY', () => ({ input: new PassThrough(), output: new PassThrough() })],
    ['input a TTY, output not', () => ({ input: ttyLike(), output: new PassThrough() })],
    ['output a TTY, input not', () => ({ input: new PassThrough(), output: ttyLike() })],
  ] as const) {
    it(`registers nothing with ${what}, so an asked call is refused as APPROVAL_UNAVAILABLE`, async () => {
      k = await createTestKernel()
      k.ctx.plugin(ui, streams())
      let runs = 0
      k.ctx.plugin({ name: 'tool', inject: ['tools'], apply: (ctx: Context) => {
        ctx.tools.register(testTool('t', () => { runs++; return 'ran' }))
        ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'check' }))
      } })
      expect(listenerCount(k)).toBe(0)
      const result = await k.call('t', {})
      expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
      expect(runs).toBe(0)
    })
  }

  it('twin: with both streams TTY-like it does register its listener', async () => {
    k = await createTestKernel()
    const fork = k.ctx.plugin(ui, { input: ttyLike(), output: ttyLike() })
    expect(listenerCount(k)).toBe(1)
    fork.dispose()
    expect(listenerCount(k)).toBe(0)
  })

  it('loads by its short name from createKernel and, with no TTY (this test process), leaves requests unavailable', async () => {
    k = await createTestKernel({ plugins: { 'ui-approval': {} } })
    expect(k.plugins().map((p) => p.spec)).toEqual(['ui-approval'])
    expect(process.stdin.isTTY === true && process.stdout.isTTY === true).toBe(false)
    expect(listenerCount(k)).toBe(0)
  })

  it('a real child process with piped stdio prints no prompt and its request ends unavailable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-ui-pipe-'))
    try {
      const out = join(dir, 'results.jsonl')
      const proc = spawn(process.execPath, [fixture, out, 'single'], { stdio: ['pipe', 'pipe', 'pipe'] })
      let stdout = ''
      proc.stdout.on('data', (chunk) => { stdout += chunk })
      const code = await new Promise((resolve) => proc.on('exit', resolve))
      expect(code).toBe(0)
      const lines = results(out)
      expect(lines[0]).toMatchObject({ stdinTTY: false, stdoutTTY: false })
      expect(lines.find((l) => l.label === 'single')?.outcome).toEqual({ kind: 'unavailable', reason: 'no approval/request listener answered' })
      expect(stdout).not.toContain('Approval needed')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
