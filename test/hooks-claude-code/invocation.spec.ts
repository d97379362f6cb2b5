/**
 * How hooks are invoked: hostile tool input reaches them only as JSON on
 * stdin; they run in the workspace with CLAUDE_PROJECT_DIR and the kernel's
 * environment; matching hooks run in parallel and identical commands once;
 * every invocation is audited.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fixture, group, hooksKernel, preHooks, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe('hostile tool input', () => {
  const marker = `/tmp/dsh-pwned-${randomUUID()}`
  afterEach(() => rmSync(marker, { force: true }))

  const hostile: Array<[string, string]> = [
    ['command substitution', `$(touch ${marker})`],
    ['backticks', `\`touch ${marker}\``],
    ['quotes and a semicolon', `'; touch ${marker}; echo '`],
    ['newlines', `ls\ntouch ${marker}\n`],
    ['a 1 MB string', `$(touch ${marker})${'x'.repeat(1024 * 1024)}`],
  ]
  for (const [what, command] of hostile) {
    it(`${what} reaches the hook only as JSON on stdin, with no side effect`, async () => {
      k = await hooksKernel({ hooks: preHooks(group('Bash', fixture('record.sh'), fixture('deny-rm.sh'))) })
      const result = await k.call('bash', { command })
      expect(result.isError).toBe(false)
      const seen = JSON.parse(k.read('seen.json'))
      expect(seen.tool_input).toEqual({ command })
      expect(existsSync(marker)).toBe(false)
    })
  }

  it('a hostile tool name or argument key is data too', async () => {
    k = await hooksKernel({ hooks: preHooks(group('*', fixture('record.sh'))), toolNames: { custom: '$(touch x)' } })
    const args = JSON.parse('{"__proto__": {"polluted": true}, "$(id)": "`id`"}')
    expect((await k.call('custom', args)).isError).toBe(false)
    const seen = JSON.parse(k.read('seen.json'))
    expect(seen.tool_name).toBe('$(touch x)')
    expect(Object.keys(seen.tool_input).sort()).toEqual(['$(id)', '__proto__'])
    expect(({} as any).polluted).toBeUndefined()
    expect(existsSync(join(k.dir, 'x'))).toBe(false)
  })
})

describe('the stdin JSON and the environment', () => {
  it('carries Claude Code\'s fields, runs in the workspace with CLAUDE_PROJECT_DIR', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash', fixture('record.sh'))) })
    await k.call('bash', { command: 'ls -la' }, { callId: 'call-stdin' })
    const seen = JSON.parse(k.read('seen.json'))
    expect(seen).toEqual({
      session_id: 'test',
      transcript_path: k.session.path,
      cwd: k.dir,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls -la' },
      tool_use_id: 'call-stdin',
    })
    expect(k.read('seen.env')).toBe(`${k.dir}\n${k.dir}\n`)
  })

  it('the environment is the kernel\'s: nothing from the call reaches it', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash', 'env > "$CLAUDE_PROJECT_DIR/env.txt"')) })
    process.env.DSH_HOOKS_TEST_MARK = 'from-the-kernel'
    try {
      await k.call('bash', { command: 'ls', env: { LD_PRELOAD: '/tmp/evil.so' } })
    } finally {
      delete process.env.DSH_HOOKS_TEST_MARK
    }
    const env = k.read('env.txt')
    expect(env).toContain('DSH_HOOKS_TEST_MARK=from-the-kernel')
    expect(env).not.toContain('evil.so')
  })

  it('toolNames maps our names; unmapped tools keep theirs', async () => {
    k = await hooksKernel({ toolNames: { custom: 'Grep' }, hooks: preHooks(group('Grep|LS', fixture('count.sh'))) })
    await k.call('custom', {})
    await k.call('ls', { path: '.' })
    await k.call('failing', {})
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(2)
    expect(k.events('hook/invoked').map((e: any) => [e.data.tool, e.data.toolName])).toEqual([['custom', 'Grep'], ['ls', 'LS']])
  })

  it('grep and glob are Grep and Glob to hooks, with their arguments as tool_input', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Grep|Glob', fixture('count.sh'))) })
    await k.call('grep', { pattern: 'TODO', output_mode: 'content', '-n': true })
    await k.call('glob', { pattern: '**/*.ts' })
    await k.call('read', { file_path: 'x' })
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(2)
    expect(k.events('hook/invoked').map((e: any) => [e.data.tool, e.data.toolName])).toEqual([['grep', 'Grep'], ['glob', 'Glob']])
  })
})

describe('parallel and once', () => {
  it('matching hooks run in parallel: each waits for the other to start', async () => {
    // run one after the other, the first would time out waiting for the second and deny
    k = await hooksKernel({ hooks: preHooks(group('Bash', fixture('rendezvous.sh', 'a', 'b'), fixture('rendezvous.sh', 'b', 'a'))) })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.isError).toBe(false)
    expect(k.events('hook/result')).toHaveLength(2)
  })

  it('the rendezvous has teeth: a lone twin denies', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash', { command: fixture('rendezvous.sh', 'a', 'never'), timeout: 30 })) })
    expect((await k.call('bash', { command: 'ls' })).error?.message).toContain('a never met never')
  })

  it('identical commands in several groups (and matchers) run once', async () => {
    const count = fixture('count.sh')
    k = await hooksKernel({ hooks: preHooks(group('Bash', count, count), group('*', count), group('^Ba', { command: count, timeout: 5 })) })
    await k.call('bash', { command: 'ls' })
    expect(readFileSync(join(k.dir, 'count.txt'), 'utf8').trim().split('\n')).toHaveLength(1)
    expect(k.events('hook/invoked')).toHaveLength(1)
  })

  it('different commands each run', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash', fixture('count.sh'), `${fixture('count.sh')} again`)) })
    await k.call('bash', { command: 'ls' })
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(2)
  })
})

describe('audit', () => {
  it('every invocation appends hook/invoked before and hook/result after, with the exit code', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash', fixture('deny-rm.sh'), fixture('exit1.sh'))) })
    await k.call('bash', { command: 'rm -rf /' }, { callId: 'audited' })
    const events = k.session.events()
    const types = events.map((e) => e.type)
    const call = types.indexOf('tool/call')
    const results = events.filter((e) => e.type === 'hook/result').map((e: any) => e.data)
    expect(events.filter((e) => e.type === 'hook/invoked').every((e) => e.seq > events[call].seq)).toBe(true)
    expect(results.map((r) => [r.exitCode, r.decision]).sort()).toEqual([[0, 'deny'], [1, 'none']])
    for (const r of results) {
      expect(r).toMatchObject({ callId: 'audited', event: 'PreToolUse', tool: 'bash', toolName: 'Bash' })
      expect(r.durationMs).toBeGreaterThan(0)
      const invoked = events.find((e: any) => e.type === 'hook/invoked' && e.data.command === r.command)!
      expect(invoked.seq).toBeLessThan(events.find((e: any) => e.type === 'hook/result' && e.data.command === r.command)!.seq)
    }
    expect(results.find((r) => r.decision === 'deny').reason).toContain('rm -rf is not allowed')
    expect(types.indexOf('tool/result')).toBeGreaterThan(types.lastIndexOf('hook/result'))
  })

  it('a call no hook matches appends no hook events', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Write', fixture('count.sh'))) })
    await k.call('bash', { command: 'ls' })
    expect(k.events('hook/invoked')).toEqual([])
  })

  it('stdout and stderr are cut to auditBytes in the events', async () => {
    k = await hooksKernel({ auditBytes: 100, hooks: preHooks(group('Bash', fixture('big-text.sh'))) })
    await k.call('bash', { command: 'ls' })
    const data = k.events('hook/result')[0].data as any
    expect(data.stdout).toMatch(/^x{100}… \(1048477 bytes cut\)$/)
  })
})
