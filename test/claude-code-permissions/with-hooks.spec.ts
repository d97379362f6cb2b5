/**
 * claude-code-permissions together with hooks-claude-code, in both orders: a
 * rule's allow never turns a hook's deny (or ask) into an allow, and a hook's
 * allow never lifts a rule's deny.
 */
import { afterEach, describe, expect, it } from 'vitest'
import * as hooks from '@dsh/hooks-claude-code'
import { permissionsKernel, type PermissionsKernel } from './kernel.js'

let k: PermissionsKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

function answering(decision: 'allow' | 'deny' | 'ask') {
  const output = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: `the hook says ${decision}` } })
  return { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `printf '%s' '${output}'` }] }] }
}

async function plugHooks(k: PermissionsKernel, decision: 'allow' | 'deny' | 'ask') {
  k.ctx.plugin(hooks as any, { workspace: k.dir, settingsFiles: [], codexFiles: [], hooks: answering(decision) })
  await k.ctx.lifecycle.flush()
}

for (const order of ['rules first', 'hooks first'] as const) {
  describe(order, () => {
    async function setUp(decision: 'allow' | 'deny' | 'ask', permissions: Record<string, unknown>) {
      k = await permissionsKernel()
      if (order === 'hooks first') await plugHooks(k, decision)
      await k.plug({ permissions })
      if (order === 'rules first') await plugHooks(k, decision)
      return k
    }

    it('a hook\'s deny stands against an allow rule', async () => {
      const k = await setUp('deny', { allow: ['mcp__dsh__bash'] })
      const result = await k.call('bash', { command: 'ls' })
      expect(result.error?.code).toBe('DENIED')
      expect(result.error?.message).toContain('the hook says deny')
      expect(k.ran).toEqual([])
    })

    it('a hook\'s ask still asks under an allow rule', async () => {
      const k = await setUp('ask', { allow: ['mcp__dsh__bash'] })
      const asked = k.answer('denied')
      expect((await k.call('bash', { command: 'ls' })).error?.code).toBe('DENIED')
      expect(asked.map((request) => request.reason)).toEqual([expect.stringContaining('the hook says ask')])
      expect(k.ran).toEqual([])
    })

    it('a hook\'s allow does not lift a deny rule', async () => {
      const k = await setUp('allow', { deny: ['Bash(ls)'] })
      expect((await k.call('bash', { command: 'ls' })).error?.message).toContain('Bash(ls)')
      expect(k.ran).toEqual([])
    })

    it('both allowing runs the call once', async () => {
      const k = await setUp('allow', { allow: ['Bash(ls)'] })
      expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
      expect(k.ran).toEqual(['bash'])
    })
  })
}
