// The CLI with no config: the built-in default set for mcp, exec and
// inspect (each says so on stderr), `dsh init` writing it as a commented
// dsh.yml without ever replacing one unasked, and `dsh --version`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { RegistrySnapshot } from '@dsh/tool-cordis'
import { sandboxBackend, skipWhen } from '../backends.js'
import { runCli as dsh } from './cli.js'
import { assertBuilt, CLI } from './mcp-helpers.js'
import { dshEnv } from '../cache-home.js'

const root = join(import.meta.dirname, '../..')
const DEFAULT_PLUGINS = ['workspace-tools', 'timeout-policy', 'spill-policy', 'repeat-tool-reminder', 'hooks-claude-code', 'claude-code-permissions']
const NOTICE = /no dsh\.yml here, using the built-in default set \(workspace-tools, timeout-policy, spill-policy, repeat-tool-reminder, hooks-claude-code, claude-code-permissions; sandbox read-only, approval ask\); `dsh init` writes it/

let dir: string
beforeAll(assertBuilt)
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-defaults-')))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('no config: the built-in default set', () => {
  it('dsh mcp serves read, write, edit, ls, grep, glob and bash to the official MCP client', async () => {
    writeFileSync(join(dir, 'hello.txt'), 'hello from the workspace\n')
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: dir, env: dshEnv({}, getDefaultEnvironment()), stderr: 'pipe' })
    let stderr = ''
    ;(transport.stderr as Readable).on('data', (c) => (stderr += c))
    const client = new Client({ name: 'dsh-e2e', version: '1.0.0' })
    await client.connect(transport)
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(['read', 'write', 'edit', 'ls', 'bash', 'grep', 'glob']))
      const found = await client.callTool({ name: 'grep', arguments: { pattern: 'hello' } })
      expect(found.isError).toBeFalsy()
      expect((found.content as Array<{ text: string }>)[0].text).toBe('hello.txt')
      // read-only: the default set writes nothing
      const write = await client.callTool({ name: 'write', arguments: { file_path: 'new.txt', content: 'x' } })
      expect(write.isError).toBe(true)
      expect(existsSync(join(dir, 'new.txt'))).toBe(false)
      expect(stderr).toMatch(NOTICE)
    } finally {
      await client.close()
    }
  })

  it('dsh exec runs a default tool and says which config it used', async () => {
    writeFileSync(join(dir, 'a.txt'), 'x\n')
    const run = await dsh(['exec', 'ls', '{"path":"."}'], dir)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('a.txt')
    expect(run.stderr).toMatch(NOTICE)
  })

  it('dsh inspect shows the default plugins and the services at read-only and ask', async () => {
    const run = await dsh(['inspect', '--json', '--no-probe'], dir)
    expect(run.code).toBe(0)
    expect(run.stderr).toMatch(NOTICE)
    const snap = JSON.parse(run.stdout) as RegistrySnapshot
    expect(snap.plugins.filter((p) => p.source === 'config').map((p) => [p.spec, p.status])).toEqual(DEFAULT_PLUGINS.map((p) => [p, 'active']))
    expect(snap.approval).toMatchObject({ policy: 'ask' })
    expect(snap.sandbox?.defaults).toMatchObject({ mode: 'read-only', workspace: dir, network: 'off' })
  })

  it('claude-code-permissions: with no settings files nothing asks (bash runs confined, a write is denied as before); the user\'s rules apply', async () => {
    if (skipWhen(!(await sandboxBackend()), 'the default set\'s bash run', 'no sandbox backend can confine bash here')) return
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-defaults-home-')))
    try {
      writeFileSync(join(dir, 'a.txt'), 'x\n')
      const bash = await dsh(['exec', 'bash', '{"command":"cat a.txt"}', '--json'], dir, { HOME: home })
      expect(bash.code, bash.stderr).toBe(0)
      const ran = JSON.parse(bash.stdout)
      expect(ran.events.filter((e: { type: string }) => e.type === 'approval/asked')).toEqual([])
      expect(ran.events.find((e: { type: string }) => e.type === 'permission/decided').data).toMatchObject({ decision: 'allow', mode: 'default' })
      const write = await dsh(['exec', 'write', '{"file_path":"new.txt","content":"x"}', '--json'], dir, { HOME: home })
      expect(JSON.parse(write.stdout).result.error).toMatchObject({ code: 'DENIED' })
      expect(existsSync(join(dir, 'new.txt'))).toBe(false)
      // the rules the user wrote for Claude Code apply to dsh's tools
      mkdirSync(join(home, '.claude'))
      writeFileSync(join(home, '.claude/settings.json'), JSON.stringify({ permissions: { deny: ['Bash(cat:*)'], ask: ['Read(./a.txt)'] } }))
      const denied = await dsh(['exec', 'bash', '{"command":"cat a.txt"}', '--json'], dir, { HOME: home })
      expect(JSON.parse(denied.stdout).result.error).toMatchObject({ code: 'DENIED' })
      // an ask rule still asks: nobody can answer without a terminal, so it is refused
      const asked = await dsh(['exec', 'read', '{"file_path":"a.txt"}', '--json'], dir, { HOME: home })
      expect(JSON.parse(asked.stdout).result.error).toMatchObject({ code: 'APPROVAL_UNAVAILABLE' })
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  }, 90_000)

  it('with a ./dsh.yml (or --config) the notice names the file instead', async () => {
    writeFileSync(join(dir, 'dsh.yml'), 'plugins:\n  workspace-tools:\n')
    const local = await dsh(['inspect', '--no-probe'], dir)
    expect(local.code).toBe(0)
    expect(local.stderr).toBe(`dsh inspect: config ${join(dir, 'dsh.yml')}\n`)
    const other = mkdtempSync(join(tmpdir(), 'dsh-defaults-other-'))
    try {
      const flag = await dsh(['exec', 'ls', '{"path":"."}', '--config', join(dir, 'dsh.yml')], other)
      expect(flag.stderr).toBe(`dsh exec: config ${join(dir, 'dsh.yml')}\n`)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe('dsh init', () => {
  it('writes ./dsh.yml, which inspect then loads to the same plugins as the built-in set', async () => {
    const run = await dsh(['init'], dir)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`wrote ${join(dir, 'dsh.yml')}`)
    const inspect = await dsh(['inspect', '--json', '--no-probe'], dir)
    expect(inspect.code).toBe(0)
    expect(inspect.stderr).toBe(`dsh inspect: config ${join(dir, 'dsh.yml')}\n`)
    const snap = JSON.parse(inspect.stdout) as RegistrySnapshot
    expect(snap.plugins.filter((p) => p.source === 'config').map((p) => p.spec)).toEqual(DEFAULT_PLUGINS)
  })

  it('refuses to overwrite an existing file unless --force, and the refusal changes nothing', async () => {
    writeFileSync(join(dir, 'dsh.yml'), 'mine: true\n')
    const refused = await dsh(['init'], dir)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`dsh init: ${join(dir, 'dsh.yml')} exists; --force overwrites it`)
    expect(readFileSync(join(dir, 'dsh.yml'), 'utf8')).toBe('mine: true\n')
    const forced = await dsh(['init', '--force'], dir)
    expect(forced.code).toBe(0)
    expect(readFileSync(join(dir, 'dsh.yml'), 'utf8')).toContain('  workspace-tools:\n')
  })

  it('writes another file when named; bad usage exits 2', async () => {
    expect((await dsh(['init', 'other.yml'], dir)).code).toBe(0)
    expect(existsSync(join(dir, 'other.yml'))).toBe(true)
    expect(existsSync(join(dir, 'dsh.yml'))).toBe(false)
    const extra = await dsh(['init', 'a.yml', 'b.yml'], dir)
    expect(extra.code).toBe(2)
    expect(extra.stderr).toContain('expected at most one file')
    const flag = await dsh(['init', '--frce'], dir)
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain("'--frce'")
  })
})

describe('dsh --version', () => {
  it('prints the version of the dsh package, with --version and -V', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'core/dsh/package.json'), 'utf8')) as { version: string }
    for (const flag of ['--version', '-V']) {
      const run = await dsh([flag], dir)
      expect(run.code).toBe(0)
      expect(run.stdout).toBe(`dsh ${version}\n`)
      expect(run.stderr).toBe('')
    }
  })
})
