/**
 * The PreToolUse protocol, one real hook script per rule, through the full
 * pipeline. Each allow case has its deny twin and the other way round.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { approvals, fixture, group, hooksKernel, preHooks, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

async function withHooks(...groups: ReturnType<typeof group>[]) {
  k = await hooksKernel({ hooks: preHooks(...groups) })
  return k
}

describe('JSON decisions (bash + jq)', () => {
  it('a JSON deny refuses the call with its reason, and the body never runs', async () => {
    const k = await withHooks(group('Bash', fixture('deny-rm.sh')))
    const result = await k.call('bash', { command: 'rm -rf /' })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toContain('rm -rf is not allowed here: rm -rf /')
    // who decided: this plugin, by the hook's command
    expect(result.error?.source).toEqual({ kind: 'hook', plugin: 'hooks-claude-code', detail: fixture('deny-rm.sh') })
    expect(k.ran).toEqual([])
  })

  it('the same hook with no decision lets the call run', async () => {
    const k = await withHooks(group('Bash', fixture('deny-rm.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.isError).toBe(false)
    expect(k.ran).toEqual(['bash'])
  })

  it('an explicit allow with no other objection lets the call run', async () => {
    const k = await withHooks(group('Bash', fixture('allow.sh')))
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect(k.events('hook/result')[0].data).toMatchObject({ decision: 'allow', exitCode: 0 })
  })

  it('a JSON object decides even when the hook exits 1', async () => {
    const k = await withHooks(group('Bash', fixture('json-exit1.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toContain('denied by JSON despite exit 1')
    expect(k.ran).toEqual([])
  })

  it('continue:false denies with the stopReason', async () => {
    const k = await withHooks(group('*', fixture('continue-false.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toContain('the session budget is exhausted')
  })

  it('updatedInput is not supported: the call is denied, its arguments unchanged', async () => {
    const k = await withHooks(group('Bash', fixture('updated-input.sh')))
    const result = await k.call('bash', { command: 'echo original' })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toMatch(/updatedInput.*not supported/)
    expect(k.ran).toEqual([])
  })
})

describe('exit codes', () => {
  it('exit 2 blocks with stderr as the reason, whatever its JSON says', async () => {
    const k = await withHooks(group('Bash', fixture('exit2-over-json.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toContain('exit 2 wins: no network tools')
  })

  it('exit 1 without a decision is non-blocking', async () => {
    const k = await withHooks(group('Bash', fixture('exit1.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.isError).toBe(false)
    expect(k.ran).toEqual(['bash'])
    expect(k.events('hook/result')[0].data).toMatchObject({ exitCode: 1, decision: 'none', stderr: 'something went wrong in the hook\n' })
  })

  it('python: exit 2 with stderr blocks; the same hook exiting 0 allows', async () => {
    const k = await withHooks(group('Bash', fixture('exit2.py')))
    expect((await k.call('bash', { command: 'sudo reboot' })).error?.message).toContain('python exit 2: sudo is not allowed')
    expect((await k.call('bash', { command: 'uptime' })).isError).toBe(false)
    expect(k.ran).toEqual(['bash'])
  })
})

describe('ask', () => {
  it('an ask goes to approval: approved runs the call, with the hook reason shown', async () => {
    const k = await withHooks(group('Bash', fixture('ask.py')))
    const asked = approvals(k, 'approved')
    const result = await k.call('bash', { command: 'make deploy' })
    expect(result.isError).toBe(false)
    expect(asked).toEqual([expect.stringContaining('python hook wants a human to look at: make deploy')])
  })

  it('an ask refused by the person denies', async () => {
    const k = await withHooks(group('Bash', fixture('ask.py')))
    approvals(k, 'denied')
    const result = await k.call('bash', { command: 'make deploy' })
    expect(result.error?.code).toBe('DENIED')
    expect(k.ran).toEqual([])
  })

  it('an ask nobody answers is refused (the approval service has no listener)', async () => {
    const k = await withHooks(group('Bash', fixture('ask.py')))
    const result = await k.call('bash', { command: 'make deploy' })
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(k.ran).toEqual([])
  })
})

describe('legacy decision (python)', () => {
  it('decision:block denies with its reason', async () => {
    const k = await withHooks(group('Bash', fixture('legacy.py')))
    const result = await k.call('bash', { command: 'curl http://example.com' })
    expect(result.error?.message).toContain('legacy block: no curl')
  })

  it('decision:approve allows', async () => {
    const k = await withHooks(group('Bash', fixture('legacy.py')))
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
  })
})

describe('several hooks', () => {
  it('two hooks disagreeing: the deny wins over the allow', async () => {
    const k = await withHooks(group('Bash', fixture('allow.sh'), fixture('deny-rm.sh')))
    const result = await k.call('bash', { command: 'rm -rf build' })
    expect(result.error?.code).toBe('DENIED')
    // the deny's hook is named, not the one that allowed
    expect(result.error?.source).toEqual({ kind: 'hook', plugin: 'hooks-claude-code', detail: fixture('deny-rm.sh') })
    expect(k.events('hook/result').map((e: any) => e.data.decision).sort()).toEqual(['allow', 'deny'])
  })

  it('a hook\'s allow does not override another listener\'s deny', async () => {
    const k = await withHooks(group('*', fixture('allow.sh')))
    k.ctx.plugin({ name: 'strict-policy', apply: (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'policy says no' })) } })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toBe('policy says no')
    expect(k.ran).toEqual([])
  })

  it('a hook\'s allow does not skip another listener\'s ask', async () => {
    const k = await withHooks(group('*', fixture('allow.sh')))
    k.ctx.plugin({ name: 'cautious-policy', apply: (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'policy asks' })) } })
    expect((await k.call('bash', { command: 'ls' })).error?.code).toBe('APPROVAL_UNAVAILABLE')
  })

  it('a hook\'s deny stands even when a later listener allows', async () => {
    const k = await withHooks(group('Bash', fixture('deny-rm.sh')))
    k.ctx.plugin({ name: 'lenient-policy', apply: (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'allow' })) } })
    expect((await k.call('bash', { command: 'rm -rf /' })).error?.code).toBe('DENIED')
  })

  it('a hook\'s ask and another listener\'s ask become one question, keeping the sandbox mode it asked for', async () => {
    const k = await withHooks(group('Bash', fixture('ask.py')))
    const asked = approvals(k, 'approved')
    k.ctx.plugin({ name: 'escalating-policy', apply: (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'needs to write', sandboxMode: 'workspace-write' })) } })
    expect((await k.call('bash', { command: 'make' })).isError).toBe(false)
    // the pipeline keeps the first ask it sees at the top rank (the inner listener's); the hook's reason is in hook/result
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatch(/needs to write.*\[workspace-write\]$/)
    expect(k.events('hook/result')[0].data).toMatchObject({ decision: 'ask', reason: 'python hook wants a human to look at: make' })
  })

  it('a hook\'s ask combined with another listener\'s deny denies', async () => {
    const k = await withHooks(group('Bash', fixture('ask.py')))
    approvals(k, 'approved')
    k.ctx.plugin({ name: 'strict-policy', apply: (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'policy says no' })) } })
    expect((await k.call('bash', { command: 'ls' })).error?.message).toBe('policy says no')
  })
})

describe('stdin and tool names', () => {
  it('the hook can open /dev/stdin (a real pipe, not a socket)', async () => {
    const k = await withHooks(group('Bash', fixture('devstdin.sh')))
    const result = await k.call('bash', { command: 'echo forbidden' })
    expect(result.error?.message).toContain('read via /dev/stdin: echo forbidden is forbidden')
    expect((await k.call('bash', { command: 'echo fine' })).isError).toBe(false)
  })

  it('node: a hook reading /dev/stdin with readFileSync decides', async () => {
    const k = await withHooks(group('Edit', fixture('deny-stdin.mjs')))
    expect((await k.call('edit', { file_path: 'package.lock', old_string: 'a', new_string: 'b' })).error?.message).toContain('node hook: package.lock is generated')
    expect((await k.call('edit', { file_path: 'a.ts', old_string: 'a', new_string: 'b' })).isError).toBe(false)
  })

  it('a hook checking tool_name == "Bash" sees Bash for our bash', async () => {
    const k = await withHooks(group(undefined, fixture('only-bash-tool.sh')))
    expect((await k.call('bash', { command: 'ls' })).error?.message).toContain('Bash calls are reviewed')
    expect((await k.call('custom', {})).isError).toBe(false)
  })

  it('python: a hook checking tool_name == "Write" sees Write for our write', async () => {
    const k = await withHooks(group('Write', fixture('deny.py')))
    expect((await k.call('write', { file_path: 'prod.env', content: 'x' })).error?.message).toContain('python hook: prod.env holds secrets')
    expect((await k.call('write', { file_path: 'readme.md', content: 'x' })).isError).toBe(false)
  })
})

describe('output edge cases', () => {
  it('text before the JSON object is malformed output: no answer, denied', async () => {
    const k = await withHooks(group('Bash', fixture('text-before-json.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/text before a JSON object/)
    expect(k.events('hook/result')[0].data).toMatchObject({ failure: 'malformed-output', decision: 'deny' })
  })

  it('a malformed JSON object is no answer: denied', async () => {
    const k = await withHooks(group('Bash', fixture('malformed.sh')))
    expect((await k.call('bash', { command: 'ls' })).error?.message).toMatch(/not a valid JSON object/)
  })

  it('1 MB of plain text is no decision: the call runs', async () => {
    const k = await withHooks(group('Bash', fixture('big-text.sh')))
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    const data = k.events('hook/result')[0].data as any
    expect(data.stdoutBytes).toBe(1048577)
    expect(Buffer.byteLength(data.stdout)).toBeLessThan(4200)
  })

  it('a 1 MB JSON deny denies, its reason cut', async () => {
    const k = await withHooks(group('Bash', fixture('big-deny.sh')))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error!.message.length).toBeLessThan(10_000)
    expect(result.error?.message).toMatch(/^r{8192}… \(cut\)$/)
  })
})
