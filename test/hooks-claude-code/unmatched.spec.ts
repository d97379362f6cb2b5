/**
 * A call no hook matches goes straight through (no hook input is built,
 * nothing is audited) — but a settings problem still refuses it, whatever its
 * tool, and a matching call still runs its hooks.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fixture, group, hooksKernel, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const SETTINGS = '.claude/settings.json'
const bashCounted = () => JSON.stringify({
  hooks: { PreToolUse: [group('Bash', fixture('count.sh'))], PostToolUse: [group('Bash', fixture('count.sh'))] },
})

describe('calls no hook matches', () => {
  it('run without a hook or an audit entry; a Bash call beside them runs both of its hooks', async () => {
    k = await hooksKernel({ settingsFiles: [SETTINGS] }, { [SETTINGS]: bashCounted() })
    for (let i = 0; i < 3; i++) expect((await k.call('read', { file_path: 'a.txt' })).isError).toBe(false)
    expect(k.events('hook/invoked')).toEqual([])
    expect(existsSync(join(k.dir, 'count.txt'))).toBe(false)
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect(k.events('hook/invoked').map((event) => (event.data as { event: string }).event)).toEqual(['PreToolUse', 'PostToolUse'])
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(2)
    expect(k.ran).toEqual(['read', 'read', 'read', 'bash'])
  })

  it('are refused while the settings cannot be used (onError deny), and logged once', async () => {
    k = await hooksKernel({ settingsFiles: [SETTINGS] }, { [SETTINGS]: bashCounted() })
    k.write(SETTINGS, '{ "hooks": ')
    for (const tool of ['read', 'custom']) {
      const result = await k.call(tool, { file_path: 'a.txt' })
      expect(result.error?.code).toBe('DENIED')
      expect(result.error?.message).toMatch(/hook settings cannot be used.*settings\.json: not valid JSON/)
    }
    expect(k.events('hook/config-error')).toHaveLength(1)
    expect(k.ran).toEqual([])
  })
})
