import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { Session } from '@dsh/kernel'
import { ApprovalService } from '@dsh/approval'
import { approvalEvents } from './helpers.js'

// the child runs the built packages (`npm run build`), like a real host
const child = join(import.meta.dirname, '../fixtures/approval-crash-child.mjs')

describe('a crash while approval is pending', () => {
  it('SIGKILL after approval/asked: on reopen the request is interrupted and nothing was approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-approval-crash-'))
    const ctx = new Context()
    try {
      const proc = spawn(process.execPath, [child, dir, 'crash'], { stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      proc.stderr.on('data', (chunk) => { stderr += chunk })
      const line = await new Promise<string>((resolve, reject) => {
        let out = ''
        proc.on('error', reject)
        proc.on('exit', (code) => reject(new Error(`child exited ${code} before asking: ${stderr}`)))
        proc.stdout.on('data', (chunk) => {
          out += chunk
          if (out.includes('\n')) resolve(out.split('\n')[0])
        })
      })
      // the listener itself found the event in the file before it was consulted
      expect(line).toBe('asked-on-disk')
      const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(signal)))
      proc.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')

      const session = new Session(dir, { id: 'crash' })
      session.beginTurn()
      ctx.plugin(ApprovalService, {})
      await ctx.start()
      const pending = ctx.approval.pending(session)
      expect(pending).toEqual([{
        id: expect.any(String),
        callId: 'c-1',
        name: 'bash',
        arguments: { command: 'rm -rf build' },
        reason: 'deletes files',
        sandboxMode: 'workspace-write',
        askedSeq: expect.any(Number),
        state: 'interrupted',
      }])
      expect(ctx.approval.grants(session)).toEqual([])
      const before = approvalEvents(session.path)
      expect(before.map((e) => e.type)).toEqual(['approval/asked'])

      // the first request on the session records the finding; the new request is decided normally
      ctx.on('approval/request', () => ({ kind: 'denied', reason: 'after the crash' }))
      const outcome = await ctx.approval.request({
        exec: { callId: 'c-2', name: 'bash', arguments: { command: 'rm -rf build' }, session, signal: new AbortController().signal, nested: false },
      })
      expect(outcome).toEqual({ kind: 'denied', reason: 'after the crash' })
      const after = approvalEvents(session.path)
      expect(after.map((e) => e.type)).toEqual(['approval/asked', 'approval/interrupted', 'approval/asked', 'approval/decided'])
      expect(after[1].data).toEqual({ id: pending[0].id, callId: 'c-1', name: 'bash', askedSeq: pending[0].askedSeq })
      expect(ctx.approval.pending(session)).toEqual([])
      // nothing anywhere in the log approved c-1
      expect(after.some((e) => e.data.callId === 'c-1' && e.data.outcome?.kind === 'approved')).toBe(false)
      session.close()
    } finally {
      await ctx.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
