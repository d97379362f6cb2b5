/**
 * Rules that cannot switch dsh off. A settings file that denies Claude Code's
 * own tools by bare name — so that the client uses dsh's instead — does not
 * deny dsh's tools; rules with a specifier keep applying to them; and rules
 * written for dsh's tools by the names Claude Code calls them
 * (`mcp__dsh__bash`, `mcp__dsh__*`, `mcp__dsh`) apply inside dsh.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { loadShellParser } from '@dsh/claude-code-permissions'
import { permissionsKernel, settings, type PermissionsKernel } from './kernel.js'

let k: PermissionsKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const OFF = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch', 'NotebookEdit', 'Bash(*)']

describe('bare built-in names are the client\'s tools', () => {
  it('the switch-off recipe denies none of dsh\'s tools; the mode decides, and no rule is recorded', async () => {
    k = await permissionsKernel({ '.claude/settings.json': settings({ deny: OFF, allow: ['mcp__dsh__read', 'mcp__dsh__bash'] }) })
    await k.plug({ settingsFiles: ['.claude/settings.json'] })
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect((await k.call('read', { file_path: 'a.txt' })).isError).toBe(false)
    expect(k.ran).toEqual(['bash', 'read'])
    const decided = k.events('permission/decided').map((event) => event.data as Record<string, unknown>)
    expect(decided.map((data) => [data.name, data.decision, data.rule])).toEqual([['bash', 'allow', 'mcp__dsh__bash'], ['read', 'allow', 'mcp__dsh__read']])
    // without an allow, a write asks by the mode (nobody answers here, so it is refused) — not denied by the rule "Write"
    const write = await k.call('write', { file_path: 'a.txt', content: 'x' })
    expect(write.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(k.events('permission/decided').at(-1)?.data).toMatchObject({ name: 'write', decision: 'ask' })
    expect((k.events('permission/decided').at(-1)?.data as Record<string, unknown>).rule).toBeUndefined()
  })

  it('dsh permissions check\'s event says the same', async () => {
    k = await permissionsKernel({ '.claude/settings.json': settings({ deny: OFF }) })
    await k.plug({ settingsFiles: ['.claude/settings.json'] })
    await loadShellParser()
    for (const [tool, args] of [['bash', { command: 'ls' }], ['read', { file_path: 'a' }], ['ls', { path: '.' }], ['grep', { pattern: 'x' }], ['glob', { pattern: '*' }]] as const) {
      const check = await k.ctx.serial('permissions/check', tool, args)
      expect(check?.decision, tool).not.toBe('deny')
      expect(check?.rule, tool).toBeUndefined()
    }
  })

  it('rules with a specifier keep applying to dsh\'s tools', async () => {
    k = await permissionsKernel({ '.claude/settings.json': settings({ deny: [...OFF, 'Bash(curl:*)', 'Read(./secrets/**)', 'Edit(./src/**)'], allow: ['mcp__dsh'] }) })
    await k.plug({ settingsFiles: ['.claude/settings.json'] })
    for (const [tool, args, rule] of [
      ['bash', { command: 'curl https://example.com' }, 'Bash(curl:*)'],
      ['read', { file_path: 'secrets/key.txt' }, 'Read(./secrets/**)'],
      ['write', { file_path: 'src/a.ts', content: 'x' }, 'Edit(./src/**)'],
      ['edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }, 'Edit(./src/**)'],
    ] as const) {
      const result = await k.call(tool, args)
      expect(result.error?.code, tool).toBe('DENIED')
      expect(result.error?.message, tool).toContain(rule)
    }
    expect(k.ran).toEqual([])
    // and the server-wide allow lets the rest through
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
  })
})

describe('rules for dsh\'s tools by their MCP names', () => {
  it('mcp__dsh__bash deny denies bash only; mcp__dsh__* deny denies every tool; each names its rule', async () => {
    k = await permissionsKernel()
    const one = await k.plug({ permissions: { deny: ['mcp__dsh__bash'], allow: ['mcp__dsh__read'] } })
    const bash = await k.call('bash', { command: 'ls' })
    expect(bash.error?.code).toBe('DENIED')
    expect(bash.error?.message).toContain('mcp__dsh__bash')
    expect((await k.call('read', { file_path: 'a' })).isError).toBe(false)
    one.dispose()
    await k.plug({ permissions: { deny: ['mcp__dsh__*'] } })
    for (const tool of ['read', 'write', 'custom'] as const) expect((await k.call(tool, tool === 'write' ? { file_path: 'a', content: '' } : {})).error?.code, tool).toBe('DENIED')
    expect(k.ran).toEqual(['read'])
  })

  it('an ask rule for mcp__dsh asks even for a command a Bash allow rule allows (ask > allow)', async () => {
    k = await permissionsKernel()
    await k.plug({ permissions: { ask: ['mcp__dsh'], allow: ['Bash(ls)'] } })
    const asked = k.answer('denied')
    expect((await k.call('bash', { command: 'ls' })).error?.code).toBe('DENIED')
    expect(asked).toHaveLength(1)
    expect(k.events('permission/decided')[0].data).toMatchObject({ decision: 'ask', rule: 'mcp__dsh' })
  })

  it('twin: rules for another server, or another dsh tool, do not apply', async () => {
    k = await permissionsKernel()
    await k.plug({ permissions: { deny: ['mcp__other__bash', 'mcp__dsh__write', 'mcp__dshx'] } })
    await k.answer('approved')
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
  })
})
