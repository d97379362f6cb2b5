/**
 * Codex's on-failure policy with the real workspace-tools bash under a
 * read-only sandbox (the real backend): a command that failed on a sandbox
 * denial is offered, once, to run again with workspace-write; approved, it
 * runs so; denied, unanswered or refused by a guard, the original failure
 * stands and nothing is written. A failure for another reason, a call that
 * did not run read-only, or a rerun that fails again is not offered.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as permissions from '@dsh/claude-code-permissions'
import * as workspaceTools from '@dsh/workspace-tools'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { sandboxBackend, skipWhen } from '../backends.js'
import { plugApprover } from './kernel.js'

const noBackend = skipWhen(!(await sandboxBackend()), 'the on-failure rerun specs', 'no sandbox backend can confine a command on this machine')

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

async function kernel(answer: 'approved' | 'denied' | 'nobody', preset = 'on-failure') {
  k = await createTestKernel({ sandbox: { mode: 'read-only' } })
  const asked: ApprovalRequestEvent[] = answer === 'nobody' ? [] : plugApprover(k.ctx, answer)
  k.ctx.plugin(workspaceTools as any, { workspace: k.dir })
  k.ctx.plugin(permissions as any, { settingsFiles: [], workspace: k.dir, preset })
  await k.ctx.lifecycle.flush()
  const calls = () => k!.session.events().filter((event) => event.type === 'tool/call').map((event) => (event.data as { callId: string }).callId)
  return { k, asked, calls }
}

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((block) => block.text ?? '').join('\n')
const exitOf = (result: { value?: unknown }) => (result.value as { exitCode?: number | null } | undefined)?.exitCode

describe.skipIf(noBackend)('preset on-failure: a command the read-only sandbox refused', () => {
  it('approved: asked once for workspace-write with the failure quoted, then the file is written; both calls are logged', async () => {
    const { k, asked, calls } = await kernel('approved')
    const result = await k.call('bash', { command: 'echo hi > made.txt' }, { callId: 'c1' })
    expect(result.isError, JSON.stringify(result.error)).toBe(false)
    expect(exitOf(result)).toBe(0)
    expect(readFileSync(join(k.dir, 'made.txt'), 'utf8')).toBe('hi\n')
    expect(asked).toHaveLength(1)
    expect(asked[0].sandboxMode).toBe('workspace-write')
    expect(asked[0].reason).toMatch(/failed in the read-only sandbox \(exit code [1-9]\d*: ".*(read-only file system|permission denied|operation not permitted).*"\)/i)
    expect(calls()).toEqual(['c1', 'c1:rerun'])
    expect(text(result)).toMatch(/ran again with workspace-write \(call c1:rerun\)/)
    const results = k.session.events().filter((event) => event.type === 'tool/result').map((event) => (event.data as { callId: string }).callId)
    expect(results).toEqual(['c1:rerun', 'c1'])
  })

  for (const answer of ['denied', 'nobody'] as const) {
    it(`${answer === 'denied' ? 'denied' : 'no approver to ask'}: the original failure is the result, nothing is written`, async () => {
      const { k, asked, calls } = await kernel(answer)
      const result = await k.call('bash', { command: 'echo hi > made.txt' }, { callId: 'c1' })
      expect(result.isError).toBe(false)
      expect(exitOf(result)).not.toBe(0)
      expect(text(result)).toMatch(/(read-only file system|permission denied)/i)
      expect(text(result)).toMatch(/\[not run again with workspace-write: /)
      expect(existsSync(join(k.dir, 'made.txt'))).toBe(false)
      expect(asked).toHaveLength(answer === 'denied' ? 1 : 0)
      expect(calls()).toEqual(['c1', 'c1:rerun'])
    })
  }

  it('a guard refusing the rerun wins over an approval: the original failure, nothing written', async () => {
    const { k, asked } = await kernel('approved')
    k.ctx.tools.guard((exec) => (exec.arguments.sandbox_permissions === 'require_escalated' ? 'no escalation here' : undefined))
    const result = await k.call('bash', { command: 'echo hi > made.txt' })
    expect(exitOf(result)).not.toBe(0)
    expect(text(result)).toMatch(/not run again with workspace-write: .*no escalation here/)
    expect(existsSync(join(k.dir, 'made.txt'))).toBe(false)
    // guards run before the approval (decisions/2026-12-02-ask-guards-and-attribution.md): nobody is asked for a rerun a guard refuses
    expect(asked).toHaveLength(0)
  })

  it('a rerun that fails again (a protected path stays read-only) is not offered twice', async () => {
    const { k, asked, calls } = await kernel('approved')
    mkdirSync(join(k.dir, '.git'))
    const result = await k.call('bash', { command: 'echo x > .git/evil' }, { callId: 'c1' })
    expect(asked).toHaveLength(1)
    expect(calls()).toEqual(['c1', 'c1:rerun'])
    expect(exitOf(result)).not.toBe(0)
    expect(existsSync(join(k.dir, '.git', 'evil'))).toBe(false)
  })
})

describe.skipIf(noBackend)('preset on-failure: what is not offered', () => {
  it('a command failing for another reason (exit 1, no denial in its output)', async () => {
    const { k, asked, calls } = await kernel('approved')
    const result = await k.call('bash', { command: 'echo nothing to see; exit 1' }, { callId: 'c1' })
    expect(exitOf(result)).toBe(1)
    expect(asked).toHaveLength(0)
    expect(calls()).toEqual(['c1'])
  })

  it('a success that prints a denial phrase (exit 0)', async () => {
    const { k, asked } = await kernel('approved')
    await k.call('bash', { command: 'echo "Permission denied"' })
    expect(asked).toHaveLength(0)
  })

  it('a failure under workspace-write, even one printing a denial phrase', async () => {
    const { k, asked } = await kernel('approved')
    await k.ctx.sandbox.setMode(k.session, 'workspace-write')
    const result = await k.call('bash', { command: 'echo "Operation not permitted" >&2; exit 3' })
    expect(exitOf(result)).toBe(3)
    expect(asked).toHaveLength(0)
  })

  it('a call that asked to escalate itself and was denied is not offered again', async () => {
    const { k, asked, calls } = await kernel('denied')
    const result = await k.call('bash', { command: 'echo hi > made.txt', sandbox_permissions: 'require_escalated', justification: 'needs to write' }, { callId: 'c1' })
    expect(result.error?.code).toBe('DENIED')
    expect(asked).toHaveLength(1)
    expect(calls()).toEqual(['c1'])
    expect(existsSync(join(k.dir, 'made.txt'))).toBe(false)
  })

  it('preset on-request: the failure is the result, nothing asks', async () => {
    const { k, asked, calls } = await kernel('approved', 'on-request')
    const result = await k.call('bash', { command: 'echo hi > made.txt' }, { callId: 'c1' })
    expect(exitOf(result)).not.toBe(0)
    expect(asked).toHaveLength(0)
    expect(calls()).toEqual(['c1'])
    expect(existsSync(join(k.dir, 'made.txt'))).toBe(false)
  })
})

describe('sandboxDenialLine', () => {
  it('names the line with a denial phrase of a failed run only', () => {
    expect(permissions.sandboxDenialLine({ exitCode: 2, stdout: '', stderr: 'sh: 1: cannot create x: Read-only file system\n' })).toBe('sh: 1: cannot create x: Read-only file system')
    expect(permissions.sandboxDenialLine({ exitCode: 1, stdout: 'touch: cannot touch \'x\': Permission denied', stderr: '' })).toMatch(/Permission denied/)
    expect(permissions.sandboxDenialLine({ exitCode: 0, stdout: '', stderr: 'Operation not permitted' })).toBeUndefined()
    expect(permissions.sandboxDenialLine({ exitCode: null, stdout: '', stderr: 'Operation not permitted' })).toBeUndefined()
    expect(permissions.sandboxDenialLine({ exitCode: 1, stdout: 'no such file', stderr: 'error: denied by policy' })).toBeUndefined()
    expect(permissions.sandboxDenialLine({ exitCode: 1, stdout: '', stderr: `${'x'.repeat(300)} permission denied` })!.length).toBeLessThanOrEqual(201)
  })
})
