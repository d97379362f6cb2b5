/**
 * Settings: Claude Code's files and Codex's hooks.json, matchers, invalid
 * settings naming the file and the JSON path, and the real kernel loader.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelError } from '@dsh/kernel'
import { compileMatcher, parseSettingsText } from '@dsh/hooks-claude-code'
import { createKernel } from 'dsh'
import { notUsing, sandboxBackend, skipWhen } from '../backends.js'
import { fixture, group, hooksKernel, preHooks, type HooksKernel } from './helpers.js'

// Settings inside a writable root load only where the sandbox keeps `.claude/` read-only. Landlock
// cannot, so there the plugin refuses them at start (plugins/hooks-claude-code/src/protect.ts).
const refusesWorkspaceSettings = (await sandboxBackend()) === 'landlock'
const notLandlock = await notUsing('landlock', 'the refusal of workspace settings under Landlock')
const LANDLOCK_GAP = 'and the landlock sandbox cannot keep protected paths read-only here (protected-paths)'

let k: HooksKernel | undefined
const dirs: string[] = []
afterEach(async () => {
  await k?.cleanup()
  k = undefined
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-hooks-'))
  dirs.push(dir)
  return dir
}

function settings(hooks: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ permissions: { allow: ['Bash(ls:*)'] }, model: 'x', ...extra, hooks })
}

describe('matchers', () => {
  const cases: Array<[string | undefined, string, boolean]> = [
    [undefined, 'Bash', true], ['', 'Write', true], ['*', 'custom', true],
    ['Bash', 'Bash', true], ['Bash', 'BashOutput', false], ['Bash', 'bash', false],
    ['Bash|Write', 'Write', true], ['Bash|Write', 'Edit', false],
    ['^Wr.*', 'Write', true], ['^Wr.*', 'Rewrite', false], ['rit', 'Write', false],
    ['.rit', 'Write', true], ['mcp__.*__write', 'mcp__fs__write_file', true], ['Notebook.*', 'NotebookEdit', true],
  ]
  for (const [matcher, tool, expected] of cases) {
    it(`${JSON.stringify(matcher)} ${expected ? 'matches' : 'does not match'} ${tool}`, () => {
      const fn = compileMatcher(matcher)
      expect(typeof fn).toBe('function')
      expect((fn as (name: string) => boolean)(tool)).toBe(expected)
    })
  }

  it('through the pipeline: Bash|Write runs for bash and write, not for edit; ^Wr.* for write only', async () => {
    k = await hooksKernel({ hooks: preHooks(group('Bash|Write', fixture('count.sh')), group('^Wr.*', `${fixture('count.sh')} regex`)) })
    await k.call('bash', { command: 'ls' })
    await k.call('write', { file_path: 'a', content: '' })
    await k.call('edit', { file_path: 'a', old_string: '', new_string: '' })
    expect(k.events('hook/invoked').map((e: any) => [e.data.tool, e.data.matcher])).toEqual([
      ['bash', 'Bash|Write'], ['write', 'Bash|Write'], ['write', '^Wr.*'],
    ])
  })
})

describe('invalid settings name the file and the JSON path', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['an invalid regex matcher', { PreToolUse: [{ matcher: '(Bash', hooks: [{ type: 'command', command: 'true' }] }] }, /hooks\.PreToolUse\[0\]\.matcher: "\(Bash" is not a valid regular expression/],
    ['a prompt hook', { PreToolUse: [{ hooks: [{ type: 'prompt', prompt: 'is it safe?' }] }] }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.type: "prompt" hooks are not supported/],
    ['an unknown handler key', { PostToolUse: [{ hooks: [{ type: 'command', command: 'true', shell: 'zsh' }] }] }, /hooks\.PostToolUse\[0\]\.hooks\[0\]\.shell: unknown key/],
    ['a negative timeout', { PreToolUse: [{ hooks: [{ type: 'command', command: 'true', timeout: -1 }] }] }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.timeout: expected seconds/],
    ['an empty command', { PreToolUse: [{ hooks: [{ type: 'command', command: ' ' }] }] }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.command: expected a non-empty string/],
    ['an event that is not an array', { PreToolUse: { hooks: [] } }, /hooks\.PreToolUse: expected an array of matcher groups/],
    ['an async hook', { PreToolUse: [{ hooks: [{ type: 'command', command: 'true', async: true }] }] }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.async: async hooks are not supported/],
    ['a bad onError', { PreToolUse: [{ hooks: [{ type: 'command', command: 'true', onError: 'allow' }] }] }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.onError: expected "deny" or "ignore", got "allow"/],
  ]
  for (const [what, hooks, message] of bad) {
    it(`${what}`, () => {
      let error: unknown
      try {
        parseSettingsText(settings(hooks), '/ws/.claude/settings.json', 'claude')
      } catch (e) {
        error = e
      }
      expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
      expect((error as Error).message).toMatch(/^\/ws\/\.claude\/settings\.json: /)
      expect((error as Error).message).toMatch(message)
    })
  }

  it('not JSON at all', () => {
    expect(() => parseSettingsText('{ "hooks": ', '/ws/.claude/settings.json', 'claude')).toThrow(/\/ws\/\.claude\/settings\.json: not valid JSON/)
  })

  it('other settings keys and events this plugin does not run are ignored', () => {
    const specs = parseSettingsText(settings({ Stop: [{ whatever: true }], UserPromptSubmit: 'x', PreToolUse: [] }, { env: { A: '1' } }), 'f', 'claude')
    expect(specs).toEqual([])
  })

  it('a broken settings file stops createKernel with INVALID_CONFIG naming file and path', async () => {
    const ws = tempDir()
    mkdirSync(join(ws, '.claude'))
    writeFileSync(join(ws, '.claude/settings.json'), settings({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', timeout: 'soon' }] }] }))
    const error = await createKernel({ dataDir: join(ws, '.dsh'), plugins: { 'hooks-claude-code': { workspace: ws } } }).catch((e) => e)
    expect(error).toBeInstanceOf(KernelError)
    const file = join(ws, '.claude/settings.json')
    // under Landlock the file is refused before it is read
    expect(error.message).toContain(refusesWorkspaceSettings ? `${file} lies inside the writable root ${ws}, ${LANDLOCK_GAP}` : `${file}: hooks.PreToolUse[0].hooks[0].timeout: expected seconds`)
    expect(KernelError.is(error.cause, 'INVALID_CONFIG')).toBe(true)
  })

  it('bad inline hooks fail config validation in createKernel, naming the plugin and path', async () => {
    const ws = tempDir()
    const error = await createKernel({ dataDir: join(ws, '.dsh'), plugins: { 'hooks-claude-code': { workspace: ws, hooks: { PreToolUse: [{ matcher: '[', hooks: [] }] } } } }).catch((e) => e)
    expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
    expect(error.message).toMatch(/hooks-claude-code.*the inline hooks config: hooks\.PreToolUse\[0\]\.matcher/)
  })

  it('a unknown plugin config key is refused by the loader', async () => {
    const ws = tempDir()
    const error = await createKernel({ dataDir: join(ws, '.dsh'), plugins: { 'hooks-claude-code': { workspace: ws, onErrors: 'ignore' } } }).catch((e) => e)
    expect(error.message).toMatch(/unknown key onErrors/)
  })
})

describe('settings files', () => {
  const defaultFiles = () => {
    const ws = tempDir()
    mkdirSync(join(ws, '.claude'))
    writeFileSync(join(ws, '.claude/settings.json'), settings({ PreToolUse: [group('Bash', fixture('deny-rm.sh'))] }))
    writeFileSync(join(ws, '.claude/settings.local.json'), settings({ PreToolUse: [group('Bash', fixture('exit2.py'))] }))
    return ws
  }

  it.skipIf(skipWhen(refusesWorkspaceSettings, 'loading the default workspace settings', 'the landlock backend this machine uses cannot keep .claude read-only, so they are refused (tested below)'))('reads .claude/settings.json and .claude/settings.local.json by default, through createKernel', async () => {
    const ws = defaultFiles()
    const kernel = await createKernel({ dataDir: join(ws, '.dsh'), plugins: { 'hooks-claude-code': { workspace: ws } } })
    try {
      kernel.ctx.plugin({ name: 'tools', inject: ['tools'], apply: (ctx) => { ctx.tools.register({ name: 'bash', description: '', parameters: { type: 'object' }, execute: () => 'ran' }) } })
      const session = kernel.openSession({ id: 's' })
      session.beginTurn()
      const call = (command: string) => kernel.execute({ callId: command, name: 'bash', arguments: { command }, session })
      expect((await call('rm -rf /')).error?.message).toContain('rm -rf is not allowed')
      expect((await call('sudo ls')).error?.message).toContain('sudo is not allowed')
      expect((await call('ls')).isError).toBe(false)
    } finally {
      await kernel.dispose()
    }
  })

  it.skipIf(notLandlock)('under Landlock, which cannot keep .claude read-only, the default workspace settings are refused at start', async () => {
    const ws = defaultFiles()
    const error = await createKernel({ dataDir: join(ws, '.dsh'), plugins: { 'hooks-claude-code': { workspace: ws } } }).catch((e) => e)
    expect(error).toBeInstanceOf(KernelError)
    expect(KernelError.is(error.cause, 'INVALID_CONFIG')).toBe(true)
    expect(error.message).toContain(`${join(ws, '.claude/settings.json')} lies inside the writable root ${ws}, ${LANDLOCK_GAP}`)
  })

  it('reads Codex\'s .codex/hooks.json, with its timeoutSec alias', async () => {
    k = await hooksKernel({ codexFiles: ['.codex/hooks.json'] })
    k.write('.codex/hooks.json', JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: fixture('hang.sh'), timeoutSec: 0.5, statusMessage: 'checking' }] }] } }))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/within its 0.5 s timeout/)
    expect(k.events('hook/invoked')[0].data).toMatchObject({ source: join(k.dir, '.codex/hooks.json'), timeoutMs: 500 })
  })

  it('timeoutSec is Codex\'s: a Claude Code settings file with it is refused', () => {
    expect(() => parseSettingsText(settings({ PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeoutSec: 1 }] }] }), 'f', 'claude')).toThrow(/timeoutSec: unknown key/)
  })

  it('a hook in both a Claude Code and a Codex file runs once', async () => {
    k = await hooksKernel({ settingsFiles: ['.claude/settings.json'], codexFiles: ['.codex/hooks.json'] })
    k.write('.claude/settings.json', settings({ PreToolUse: [group('Bash', fixture('count.sh'))] }))
    k.write('.codex/hooks.json', JSON.stringify({ hooks: { PreToolUse: [group('Bash', fixture('count.sh'))] } }))
    await k.call('bash', { command: 'ls' })
    expect(k.read('count.txt').trim().split('\n')).toHaveLength(1)
  })
})
