/**
 * dsh's tools under the names a client calling dsh over MCP gives them: a
 * hook written for `mcp__dsh__bash` (or `mcp__dsh__.*`) applies to dsh's
 * bash; one matching both names runs once per call in dsh; and
 * `hookRunsTwice` says which matchers the client runs as well (what
 * `dsh doctor` reports), with a warning said once when such a hook loads.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { clientToolName, hookRunsTwice } from '@dsh/hooks-claude-code'
import { fixture, group, hooksKernel, preHooks, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe('a hook written for mcp__dsh__<tool>', () => {
  it('mcp__dsh__bash denies dsh\'s bash, and only it', async () => {
    k = await hooksKernel({ hooks: preHooks(group('mcp__dsh__bash', fixture('deny-rm.sh'))) })
    const denied = await k.call('bash', { command: 'rm -rf /' })
    expect(denied.error?.code).toBe('DENIED')
    expect(k.ran).toEqual([])
    await k.call('read', { file_path: 'x' })
    expect(k.ran).toEqual(['read'])
  })

  it('a regex over the server (mcp__dsh__.*) applies to every dsh tool', async () => {
    k = await hooksKernel({ hooks: preHooks(group('mcp__dsh__.*', fixture('count.sh'))) })
    await k.call('bash', { command: 'ls' })
    await k.call('read', { file_path: 'x' })
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(2)
  })

  it('a matcher taking both names (Bash|mcp__dsh__bash) runs once per call here', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash|mcp__dsh__bash', fixture('count.sh'))) })
    await k.call('bash', { command: 'ls' })
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(1)
    expect(k.events('hook/invoked')).toHaveLength(1)
  })

  it('twin: a matcher for another server or tool does not apply', async () => {
    k = await hooksKernel({ hooks: preHooks(group('mcp__other__bash|mcp__dsh__write', fixture('count.sh'))) })
    await k.call('bash', { command: 'ls' })
    expect(existsSync(join(k.dir, 'count.txt'))).toBe(false)
  })
})

describe('hookRunsTwice', () => {
  it('is true exactly for matchers that take a dsh tool by its mcp__dsh__ name', () => {
    expect(clientToolName('bash')).toBe('mcp__dsh__bash')
    for (const matcher of ['mcp__dsh__bash', 'Bash|mcp__dsh__bash', 'mcp__dsh__.*', 'mcp__.*', '*', '', undefined, '.*bash']) expect(hookRunsTwice(matcher), String(matcher)).toBe(true)
    for (const matcher of ['Bash', 'Bash|Read', 'Write|Edit', 'mcp__github__.*', 'mcp__dsh__nothing', '^Bash$', '(']) expect(hookRunsTwice(matcher), matcher).toBe(false)
    // only the tools asked about
    expect(hookRunsTwice('mcp__dsh__web_fetch', ['bash'])).toBe(false)
  })
})
