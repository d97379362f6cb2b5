/**
 * PermissionRequest hooks: they answer an approval before any person is asked.
 * `hookSpecificOutput.decision.behavior` allow → approved once (the call runs
 * once), deny → denied with its message; any other shape is no decision (the
 * normal approval path applies, never an allow); a hook that hangs is denied
 * after its timeout. Each run is audited like the other events, with the
 * input fields Claude Code documents.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { approvals, fixture, group, hooksKernel, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const answer = (output: unknown) => `printf '%s' '${JSON.stringify(output)}'`
const ALLOW = answer({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } })
const DENY = answer({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'the hook says no' } } })

/** A kernel whose every call asks (a listener), with PermissionRequest hooks and a person who answers `person`. */
async function asking(handlers: Parameters<typeof group>[1][], person: 'approved' | 'denied') {
  k = await hooksKernel({ hooks: { PermissionRequest: [group('custom', ...handlers)] } })
  k.ctx.plugin({ name: 'asks', apply: (ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'the policy asks' })) })
  const asked = approvals(k, person)
  return { k, asked }
}

describe('PermissionRequest', () => {
  it('allow: approved once without asking the person; the call runs once', async () => {
    const { k, asked } = await asking([ALLOW], 'denied')
    expect((await k.call('custom', {})).isError).toBe(false)
    expect(k.ran).toEqual(['custom'])
    expect(asked).toEqual([])
    expect(k.events('approval/decided').map((event) => (event.data as { outcome: unknown }).outcome)).toEqual([{ kind: 'approved', grant: 'once' }])
    // once: the next call asks the hook again
    await k.call('custom', {})
    expect(k.events('hook/invoked').filter((event) => (event.data as { event: string }).event === 'PermissionRequest')).toHaveLength(2)
  })

  it('deny: DENIED with the hook\'s message, the body never runs, the person is not asked', async () => {
    const { k, asked } = await asking([DENY], 'approved')
    const result = await k.call('custom', {})
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toContain('the hook says no')
    expect(k.ran).toEqual([])
    expect(asked).toEqual([])
  })

  it('a wrong shape is no decision: the normal approval path applies, never an allow', async () => {
    const shapes = [
      { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'maybe' } } },
      { hookSpecificOutput: { hookEventName: 'PermissionRequest', permissionDecision: 'allow' } },
      { decision: 'approve' },
      { hookSpecificOutput: { decision: 'allow' } },
    ]
    const { k, asked } = await asking(shapes.map(answer), 'denied')
    const result = await k.call('custom', {})
    expect(result.error?.message).toContain('a person said no')
    expect(asked).toHaveLength(1)
    expect(k.ran).toEqual([])
  })

  it('one that hangs is denied after its timeout; one that rewrites the input denies', async () => {
    const hung = await asking([{ command: fixture('hang.sh'), timeout: 0.5 }], 'approved')
    const result = await hung.k.call('custom', {})
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toMatch(/timed out|no answer/)
    expect(hung.asked).toEqual([])
    expect(hung.k.ran).toEqual([])
    await hung.k.cleanup()
    const rewrite = await asking([answer({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { x: 1 } } } })], 'approved')
    expect((await rewrite.k.call('custom', {})).error?.message).toMatch(/updatedInput/)
    expect(rewrite.k.ran).toEqual([])
  })

  it('its hooks see Claude Code\'s input fields, and only approvals of matching tools', async () => {
    k = await hooksKernel({ hooks: { PermissionRequest: [group('custom', fixture('record.sh'))] } })
    k.ctx.plugin({ name: 'asks', apply: (ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'the policy asks' })) })
    approvals(k, 'approved')
    await k.call('custom', { a: 1 })
    await k.call('read', { file_path: 'x' })
    const seen = JSON.parse(readFileSync(join(k.dir, 'seen.json'), 'utf8'))
    expect(k.events('hook/invoked').filter((event) => (event.data as { event: string }).event === 'PermissionRequest')).toHaveLength(1)
    expect(seen).toMatchObject({ hook_event_name: 'PermissionRequest', tool_name: 'custom', tool_input: { a: 1 }, session_id: 'test', cwd: k.dir, permission_mode: 'default' })
    expect(seen.transcript_path).toBe(k.session.path)
  })
})
