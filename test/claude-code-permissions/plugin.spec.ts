/**
 * The plugin in a real kernel: what each decision does to the call, the
 * `permission/decided` audit, settings files and their precedence, reloads,
 * and bad input refused by name.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { permissionsKernel, settings, until, type PermissionsKernel } from './kernel.js'

let k: PermissionsKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe('decisions in the pipeline', () => {
  it('a deny rule denies before the body, an allow runs it, a mode ask goes to approval', async () => {
    k = await permissionsKernel()
    await k.plug({ permissions: { allow: ['Bash(git status)'], deny: ['Bash(rm:*)'] } })
    const denied = await k.call('bash', { command: 'rm -rf x' })
    expect(denied.error?.code).toBe('DENIED')
    expect(denied.error?.message).toContain('Bash(rm:*)')
    // who decided: the rule, as written, of this plugin
    expect(denied.error?.source).toEqual({ kind: 'rule', plugin: 'claude-code-permissions', detail: 'Bash(rm:*)' })
    expect((await k.call('bash', { command: 'git status' })).isError).toBe(false)
    const asked = k.answer('denied')
    const refused = await k.call('bash', { command: 'make' })
    expect(refused.error?.code).toBe('DENIED')
    // the mode's default asked, and the approval refused
    expect(refused.error?.source).toEqual({ kind: 'approval', plugin: 'claude-code-permissions', detail: 'mode default of plugin claude-code-permissions' })
    expect(asked).toHaveLength(1)
    expect(asked[0].reason).toMatch(/mode default: Bash is not allowed by a rule/)
    expect(k.ran).toEqual(['bash'])
  })

  it('appends permission/decided for every decision, with rule and source exactly when a rule decided', async () => {
    k = await permissionsKernel({ '.claude/settings.json': settings({ allow: ['Read(./a.txt)'] }) })
    await k.plug({ settingsFiles: ['.claude/settings.json'], permissions: { deny: ['Bash(curl:*)'] } })
    await k.call('read', { file_path: 'a.txt' })
    await k.call('read', { file_path: 'b.txt' })
    await k.call('bash', { command: 'curl x' })
    const decided = k.events('permission/decided').map((event) => event.data)
    expect(decided).toEqual([
      { callId: expect.any(String), name: 'read', decision: 'allow', mode: 'default', rule: 'Read(./a.txt)', source: `${k.dir}/.claude/settings.json` },
      { callId: expect.any(String), name: 'read', decision: 'allow', mode: 'default' },
      { callId: expect.any(String), name: 'bash', decision: 'deny', mode: 'default', rule: 'Bash(curl:*)', source: 'inline' },
    ])
    // the decision is logged before the call's result
    const types = k.session.events().map((event) => event.type)
    expect(types.indexOf('permission/decided')).toBeLessThan(types.indexOf('tool/result'))
  })

  it('an allow rule never lifts a later listener\'s deny or a guard\'s', async () => {
    k = await permissionsKernel()
    await k.plug({ permissions: { allow: ['mcp__dsh__bash', 'mcp__dsh__write'] } })
    k.ctx.plugin({ name: 'later-deny', apply: (ctx) => ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'bash' ? { kind: 'deny', reason: 'a later listener says no' } : next())) })
    k.ctx.plugin({ name: 'guard', inject: ['tools'], apply: (ctx) => ctx.tools.guard((exec) => (exec.name === 'write' ? 'a guard says no' : undefined)) })
    expect((await k.call('bash', { command: 'ls' })).error?.message).toContain('a later listener says no')
    expect((await k.call('write', { file_path: 'x', content: '' })).error?.message).toContain('a guard says no')
    expect(k.ran).toEqual([])
  })

  it('a mode from the settings file applies; the plugin\'s defaultMode and the inline one win over it, in that order', async () => {
    k = await permissionsKernel({ '.claude/settings.json': settings({ defaultMode: 'dontAsk' }) })
    const first = await k.plug({ settingsFiles: ['.claude/settings.json'] })
    expect((await k.call('bash', { command: 'make' })).error?.message).toMatch(/dontAsk/)
    first.dispose()
    const second = await k.plug({ settingsFiles: ['.claude/settings.json'], defaultMode: 'bypassPermissions' })
    expect((await k.call('bash', { command: 'make' })).isError).toBe(false)
    second.dispose()
    await k.plug({ settingsFiles: ['.claude/settings.json'], defaultMode: 'bypassPermissions', permissions: { defaultMode: 'plan' } })
    expect((await k.call('bash', { command: 'make' })).error?.message).toMatch(/mode plan/)
    expect(k.events('permission/decided').map((event) => (event.data as { mode: string }).mode)).toEqual(['dontAsk', 'bypassPermissions', 'plan'])
  })
})

describe('settings files', () => {
  it('reads managed, local, project and user files by default; arrays merge, the highest defaultMode wins', async () => {
    k = await permissionsKernel({
      '.claude/settings.json': settings({ allow: ['Bash(make)'], defaultMode: 'plan' }),
      '.claude/settings.local.json': settings({ deny: ['Bash(make clean)'], defaultMode: 'acceptEdits' }),
      'home/.claude/settings.json': settings({ allow: ['Bash(make test)'], defaultMode: 'dontAsk' }),
    })
    await k.plug({ settingsFiles: undefined })
    const view = k.ctx.bail('permissions/rules')!
    expect(view.mode).toBe('acceptEdits')
    expect(view.files).toEqual(['/etc/claude-code/managed-settings.json', `${k.dir}/.claude/settings.local.json`, `${k.dir}/.claude/settings.json`, `${k.home}/.claude/settings.json`])
    expect(view.rules).toEqual([
      { list: 'deny', rule: 'Bash(make clean)', source: `${k.dir}/.claude/settings.local.json` },
      { list: 'allow', rule: 'Bash(make)', source: `${k.dir}/.claude/settings.json` },
      { list: 'allow', rule: 'Bash(make test)', source: `${k.home}/.claude/settings.json` },
    ])
    expect((await k.call('bash', { command: 'make test' })).isError).toBe(false)
    expect((await k.call('bash', { command: 'make clean' })).error?.code).toBe('DENIED')
  })

  it('refuses an unparseable rule, an unknown tool and an invalid file by name, and does not start', async () => {
    k = await permissionsKernel({
      'bad-rule.json': settings({ allow: ['Bash(ls)', 'Bash(npm'] }),
      'bad-tool.json': settings({ deny: ['Frobnicate(x)'] }),
      'bad-json.json': '{"permissions": ',
      'bad-mode.json': settings({ defaultMode: 'yolo' }),
    })
    await expect(k.plug({ settingsFiles: ['bad-rule.json'] })).rejects.toThrow(`${k.dir}/bad-rule.json: permissions.allow[1]: rule "Bash(npm" is not of the form Tool or Tool(specifier)`)
    await expect(k.plug({ settingsFiles: ['bad-tool.json'] })).rejects.toThrow(/bad-tool\.json: permissions\.deny\[0\]: rule "Frobnicate\(x\)" names no Claude Code tool/)
    await expect(k.plug({ settingsFiles: ['bad-json.json'] })).rejects.toThrow(/bad-json\.json: not valid JSON/)
    await expect(k.plug({ settingsFiles: ['bad-mode.json'] })).rejects.toThrow(/permissions\.defaultMode: expected one of default, acceptEdits/)
    // a call meanwhile is not let through by the failed plugin: with none loaded the pipeline's default applies
    expect(k.ctx.bail('permissions/rules')).toBeUndefined()
  })

  it('accepts Claude Code tools dsh lacks, and ignores unknown keys outside permissions', async () => {
    k = await permissionsKernel({ 's.json': settings({ allow: ['Task', 'TodoWrite', 'NotebookEdit(x.ipynb)', 'Skill', 'MultiEdit'], futureKey: true }, { model: 'x', hooks: {} }) })
    await k.plug({ settingsFiles: ['s.json'] })
    expect(k.ctx.bail('permissions/rules')!.rules).toHaveLength(5)
  })

  it('loads the deny list dsh setup writes (Claude Code 2.1\'s Monitor among the built-ins)', async () => {
    k = await permissionsKernel({ 's.json': settings({ deny: ['Monitor', 'NotebookEdit', 'WebSearch'] }) })
    await k.plug({ settingsFiles: ['s.json'] })
    const rules = k.ctx.bail('permissions/rules')!.rules
    expect(rules).toHaveLength(3)
    expect(JSON.stringify(rules)).toContain('"Monitor"')
  })

  it('reloads on change; a failed reload keeps the previous rules whole', async () => {
    k = await permissionsKernel({ 's.json': settings({ deny: ['Bash(curl:*)'] }) })
    await k.plug({ settingsFiles: ['s.json'], defaultMode: 'bypassPermissions' })
    const reloads: Array<{ problem?: string }> = []
    k.ctx.on('permissions/reloaded', (report) => void reloads.push(report))
    expect((await k.call('bash', { command: 'curl x' })).error?.code).toBe('DENIED')
    expect((await k.call('bash', { command: 'wget x' })).isError).toBe(false)
    k.write('s.json', settings({ deny: ['Bash(wget:*)'] }))
    // the stamp check before the call sees the edit even before the watcher fires
    expect((await k.call('bash', { command: 'wget x' })).error?.code).toBe('DENIED')
    expect((await k.call('bash', { command: 'curl x' })).isError).toBe(false)
    k.write('s.json', settings({ deny: ['Bash(wget:*)', 'Nope'] }))
    expect((await k.call('bash', { command: 'wget x' })).error?.code).toBe('DENIED')
    expect((await k.call('bash', { command: 'curl x' })).isError).toBe(false)
    await until(() => reloads.some((report) => report.problem))
    expect(reloads.find((report) => report.problem)?.problem).toMatch(/permissions\.deny\[1\]: rule "Nope"/)
  })
})
