/**
 * Escalation instead of failing flat, with the real workspace-tools under a
 * read-only sandbox: an approved ask for a write runs that one write with
 * workspace-write (the approver is shown so), a denied one is DENIED, and a
 * write nobody asked about is DENIED with the way to allow it — never
 * TOOL_FAILED. The same for an ask from a Claude Code hook, and for Codex's
 * escalation request on bash.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as hooks from '@dsh/hooks-claude-code'
import * as permissions from '@dsh/claude-code-permissions'
import * as workspaceTools from '@dsh/workspace-tools'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { sandboxBackend, skipWhen } from '../backends.js'
import { plugApprover } from './kernel.js'

const noBackend = skipWhen(!(await sandboxBackend()), 'the bash escalation specs', 'no sandbox backend can confine a command on this machine')

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

type Plugins = Array<[unknown, Record<string, unknown>]>

async function kernel(plugins: Plugins | ((dir: string) => Plugins), answer?: 'approved' | 'denied') {
  k = await createTestKernel({ sandbox: { mode: 'read-only' } })
  const asked: ApprovalRequestEvent[] = answer ? plugApprover(k.ctx, answer) : []
  k.ctx.plugin(workspaceTools as any, { workspace: k.dir })
  for (const [plugin, config] of typeof plugins === 'function' ? plugins(k.dir) : plugins) k.ctx.plugin(plugin as any, config)
  await k.ctx.lifecycle.flush()
  return { k, asked }
}

const rules = (config: Record<string, unknown> = {}) => [permissions, { settingsFiles: [], ...config }] as [unknown, Record<string, unknown>]

describe('an ask from a permission mode', () => {
  it('approved once: the write runs with workspace-write, and the approver was shown that', async () => {
    const { k, asked } = await kernel([rules()], 'approved')
    const result = await k.call('write', { file_path: join(k.dir, 'a.txt'), content: 'hello' })
    expect(result.isError, JSON.stringify(result.error)).toBe(false)
    expect(readFileSync(join(k.dir, 'a.txt'), 'utf8')).toBe('hello')
    expect(asked).toHaveLength(1)
    expect(asked[0].sandboxMode).toBe('workspace-write')
    expect(k.session.events().find((event) => event.type === 'approval/asked')?.data).toMatchObject({ sandboxMode: 'workspace-write' })
    // once: the next write asks again
    await k.call('write', { file_path: join(k.dir, 'b.txt'), content: 'x' })
    expect(asked).toHaveLength(2)
  })

  it('denied: DENIED, and nothing is written', async () => {
    const { k } = await kernel([rules()], 'denied')
    const result = await k.call('write', { file_path: join(k.dir, 'a.txt'), content: 'hello' })
    expect(result.error?.code).toBe('DENIED')
    expect(existsSync(join(k.dir, 'a.txt'))).toBe(false)
  })

  it('no ask (allowed by a rule): DENIED with the reason and the way to allow it, never TOOL_FAILED', async () => {
    const { k } = await kernel([rules({ permissions: { allow: ['mcp__dsh__write', 'mcp__dsh__edit'] } })])
    const result = await k.call('write', { file_path: join(k.dir, 'a.txt'), content: 'hello' })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toMatch(/write needs the sandbox mode workspace-write \(to write inside the workspace\), and this call would run under read-only/)
    expect(result.error?.message).toMatch(/To allow it: approve it when it asks/)
    expect(existsSync(join(k.dir, 'a.txt'))).toBe(false)
  })

  it('a session already in workspace-write writes without escalating', async () => {
    const { k, asked } = await kernel([rules({ permissions: { allow: ['mcp__dsh__write'] } })], 'approved')
    await k.ctx.sandbox.setMode(k.session, 'workspace-write')
    expect((await k.call('write', { file_path: join(k.dir, 'a.txt'), content: 'x' })).isError).toBe(false)
    expect(asked).toHaveLength(0)
  })
})

describe('an ask from a Claude Code hook', () => {
  const askHook = {
    PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `printf '%s' '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'the hook asks' } })}'` }] }],
  }
  for (const answer of ['approved', 'denied'] as const) {
    it(`${answer}: ${answer === 'approved' ? 'the file is written' : 'DENIED, nothing written'}`, async () => {
      const { k, asked } = await kernel((dir) => [[hooks, { workspace: dir, settingsFiles: [], codexFiles: [], hooks: askHook }]], answer)
      const result = await k.call('write', { file_path: join(k.dir, 'a.txt'), content: 'hello' })
      expect(asked.map((request) => [request.reason, request.sandboxMode])).toEqual([['the hook asks', 'workspace-write']])
      if (answer === 'approved') {
        expect(result.isError, JSON.stringify(result.error)).toBe(false)
        expect(readFileSync(join(k.dir, 'a.txt'), 'utf8')).toBe('hello')
      } else {
        expect(result.error?.code).toBe('DENIED')
        expect(existsSync(join(k.dir, 'a.txt'))).toBe(false)
      }
    })
  }
})

describe.skipIf(noBackend)('Codex escalation on bash (preset on-request)', () => {
  for (const answer of ['approved', 'denied'] as const) {
    it(`require_escalated with a justification asks for workspace-write; ${answer}`, async () => {
      const { k, asked } = await kernel([rules({ preset: 'on-request' })], answer)
      const result = await k.call('bash', { command: 'echo hi > made.txt', sandbox_permissions: 'require_escalated', justification: 'write the build stamp' })
      expect(asked.map((request) => [request.sandboxMode, request.reason])).toEqual([['workspace-write', expect.stringContaining('write the build stamp')]])
      if (answer === 'approved') {
        expect(result.isError, JSON.stringify(result.error)).toBe(false)
        expect(readFileSync(join(k.dir, 'made.txt'), 'utf8')).toBe('hi\n')
      } else {
        expect(result.error?.code).toBe('DENIED')
        expect(existsSync(join(k.dir, 'made.txt'))).toBe(false)
      }
      // without the request the same command runs read-only and cannot write
      const plain = await k.call('bash', { command: 'echo hi > other.txt' })
      expect(existsSync(join(k.dir, 'other.txt'))).toBe(false)
      expect(plain.error?.code ?? 'ran').not.toBe('TOOL_FAILED')
    })
  }
})

describe('a tool whose requiredMode is broken', () => {
  it('is refused, never run with a guessed mode', async () => {
    k = await createTestKernel({ sandbox: { mode: 'read-only' } })
    let ran = false
    k.ctx.plugin({
      name: 'broken',
      inject: ['tools'],
      apply: (ctx) => {
        ctx.tools.register({ name: 'thrower', description: 'x', parameters: { type: 'object' }, requiredMode: () => { throw new Error('boom') }, execute: () => { ran = true; return 'ran' } })
        ctx.tools.register({ name: 'liar', description: 'x', parameters: { type: 'object' }, requiredMode: (() => 'root') as any, execute: () => { ran = true; return 'ran' } })
      },
    })
    expect((await k.call('thrower', {})).error?.message).toMatch(/the requiredMode of thrower failed: boom/)
    expect((await k.call('liar', {})).error?.message).toMatch(/answered "root", not a sandbox mode/)
    expect(ran).toBe(false)
    expect(() => k!.ctx.tools.register({ name: 'bad', description: 'x', parameters: { type: 'object' }, requiredMode: 'root' as any, execute: () => 'x' })).toThrow(/requiredMode must be/)
  })
})
