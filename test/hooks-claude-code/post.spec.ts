/**
 * PostToolUse and PostToolUseFailure hooks run on the tool's result in gate 4
 * and can block it; a post hook that gives no answer withholds the result.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { fixture, group, hooksKernel, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe('PostToolUse', () => {
  it('decision:block replaces the result with BLOCKED and the reason; the tool did run', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('Bash', fixture('post-block.sh'))] } })
    const result = await k.call('bash', { command: 'cat SECRET.txt' })
    // the hook that blocked, by its command
    expect(result.error).toEqual({ code: 'BLOCKED', message: 'the output contains a secret', source: { kind: 'hook', plugin: 'hooks-claude-code', detail: fixture('post-block.sh') } })
    expect(result.content).not.toContainEqual(expect.objectContaining({ text: 'bash ran' }))
    expect(k.ran).toEqual(['bash'])
  })

  it('the same hook passes a clean result unchanged', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('Bash', fixture('post-block.sh'))] } })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'bash ran' }])
  })

  it('the hook sees the tool response in tool_response', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('*', fixture('record.sh'))] } })
    await k.call('custom', { a: 1 })
    const seen = JSON.parse(k.read('seen.json'))
    expect(seen).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'custom', tool_input: { a: 1 }, tool_response: { echo: { a: 1 } } })
  })

  it('node: exit 2 from a post hook blocks with its stderr', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('Write', fixture('post-block.mjs'))] } })
    expect((await k.call('write', { file_path: 'a', content: 'TOO-LONG' })).error).toMatchObject({ code: 'BLOCKED', message: 'node post hook: the result is too long to show' })
    expect((await k.call('write', { file_path: 'a', content: 'ok' })).isError).toBe(false)
  })

  it('a post hook that times out withholds the result', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('Bash', { command: fixture('hang.sh'), timeout: 0.5 })] } })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.code).toBe('BLOCKED')
    expect(result.error?.message).toMatch(/timeout/)
  })

  it('with onError ignore, a post hook that crashes leaves the result alone', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('Bash', { command: fixture('crash.sh'), onError: 'ignore' })] } })
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
  })

  it('a post hook replacing the output (unsupported) withholds the result instead', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('*', `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":"redacted"}}'`)] } })
    const result = await k.call('custom', {})
    expect(result.error?.code).toBe('BLOCKED')
    expect(result.error?.message).toMatch(/updatedMCPToolOutput.*not supported/)
  })

  it('PostToolUse hooks do not run for failed calls', async () => {
    k = await hooksKernel({ hooks: { PostToolUse: [group('*', fixture('count.sh'))] } })
    await k.call('failing', {})
    expect(k.events('hook/invoked')).toEqual([])
  })
})

describe('PostToolUseFailure', () => {
  it('runs for a failed call with the error, and can block it', async () => {
    k = await hooksKernel({ hooks: { PostToolUseFailure: [group('failing', fixture('post-failure.sh'))] } })
    const result = await k.call('failing', {})
    expect(result.error).toMatchObject({ code: 'BLOCKED', message: 'failure seen: PostToolUseFailure' })
    expect(k.read('failure.txt')).toMatch(/^TOOL_FAILED: failing failed: the tool broke/)
  })

  it('does not run for a successful call', async () => {
    k = await hooksKernel({ hooks: { PostToolUseFailure: [group('*', fixture('count.sh'))] } })
    expect((await k.call('custom', {})).isError).toBe(false)
    expect(k.events('hook/invoked')).toEqual([])
  })

  it('an approving hook cannot turn the failure into a success', async () => {
    k = await hooksKernel({ hooks: { PostToolUseFailure: [group('*', `cat > /dev/null; echo '{"decision":"approve"}'`)] } })
    const result = await k.call('failing', {})
    expect(result.error?.code).toBe('TOOL_FAILED')
  })

  it('an answer naming another event (a PreToolUse decision) is malformed here: withheld', async () => {
    k = await hooksKernel({ hooks: { PostToolUseFailure: [group('*', fixture('allow.sh'))] } })
    const result = await k.call('failing', {})
    expect(result.error?.code).toBe('BLOCKED')
    expect(result.error?.message).toMatch(/hookEventName" is "PreToolUse" in a PostToolUseFailure hook/)
  })
})
