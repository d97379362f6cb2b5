/**
 * Adversarial, through the whole pipeline with the real workspace-tools bash
 * under a workspace-write sandbox (so a command let through really deletes):
 * the default set's preset on-request and Bash deny rules. A disguised `rm`
 * asks naming the rule; with nobody to answer it is denied with the remedy,
 * and the file is still there. An approval runs the command (the floor asks,
 * it does not forbid), and its exec of rm is then refused on its own.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as permissions from '@dsh/claude-code-permissions'
import * as workspaceTools from '@dsh/workspace-tools'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { sandboxBackend, skipWhen } from '../backends.js'
import { plugApprover } from './kernel.js'

const noBackend = skipWhen(!(await sandboxBackend()), 'the disguised-command pipeline specs', 'no sandbox backend can confine a command on this machine')

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

async function kernel(answer?: 'approved' | 'denied') {
  k = await createTestKernel({ sandbox: { mode: 'workspace-write' } })
  if (answer) plugApprover(k.ctx, answer)
  k.ctx.plugin(workspaceTools as any, { workspace: k.dir })
  k.ctx.plugin(permissions as any, { settingsFiles: [], preset: 'on-request', permissions: { deny: ['Bash(rm:*)', 'Bash(curl:*)'] } })
  await k.ctx.lifecycle.flush()
  writeFileSync(join(k.dir, 'x'), 'keep me')
  return k
}

describe.skipIf(noBackend)('a disguised rm under on-request, through the pipeline', () => {
  for (const command of ['$(echo rm) x', 'a=rm; $a x', '${RM:-rm} x', 'rm${IFS}x', "bash -c '{rm,x}'", 'true 3<>y; rm x', 'exec 3<>y; rm x', 'rm 2>/dev/null x']) {
    it(`${JSON.stringify(command)}: refused with nobody to ask, naming the rule; the file survives`, async () => {
      const k = await kernel()
      const result = await k.call('bash', { command })
      expect(result.isError).toBe(true)
      expect(['DENIED', 'APPROVAL_UNAVAILABLE']).toContain(result.error?.code)
      expect(result.error?.message).toContain('Bash(rm:*)')
      expect(existsSync(join(k.dir, 'x'))).toBe(true)
      const decided = k.session.events().find((event) => event.type === 'permission/decided')?.data as Record<string, unknown>
      expect(decided).toMatchObject({ name: 'bash', rule: 'Bash(rm:*)', source: 'inline' })
      expect(['ask', 'deny']).toContain(decided.decision)
      // an ask names the remedy: how not to be asked, and that nobody could answer
      if (decided.decision === 'ask') expect(result.error?.message).toMatch(/write the program names literally/)
    })
  }

  it('approved, the disguised command runs, and its exec of rm is still refused by the deny rule (exec-rules.spec.ts)', async () => {
    const k = await kernel('approved')
    const result = await k.call('bash', { command: '$(echo rm) x' })
    expect(result.isError, JSON.stringify(result.error)).toBe(false)
    const unenforced = (k.session.events().find((e) => e.type === 'tool/result')?.data as { sandbox?: { unenforced?: string[] } }).sandbox?.unenforced ?? []
    // where the kernel cannot stop an exec (`exec-rules` unenforced) the approved text is all there is
    expect(existsSync(join(k.dir, 'x'))).toBe(!unenforced.includes('exec-rules'))
  })

  it('twin: a command no rule could match still runs confined without asking', async () => {
    const k = await kernel()
    const result = await k.call('bash', { command: 'cat $(echo x)' })
    expect(result.isError, JSON.stringify(result.error)).toBe(false)
    expect(JSON.stringify(result.content)).toContain('keep me')
  })
})
