/**
 * `dsh setup <client> --adopt-mcp-servers` and `--restore` on real files (the built CLI, a fresh
 * HOME and project; Claude Code's servers added by the real `claude mcp add` when it installs):
 * the servers move into dsh.yml and out of the client, --dry-run writes nothing, a second
 * adoption changes nothing, and --restore gives back every file byte for byte — or, when the
 * client changed its file since, the servers back and the client's change kept.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt } from '../mcp-helpers.ts'
import { Sandbox } from './harness.ts'
import { installClient } from './install.ts'

let box: Sandbox | undefined
beforeAll(() => assertBuilt())
afterEach(() => {
  box?.remove()
  box = undefined
})

const read = (path: string) => readFileSync(path, 'utf8')
const claude = installClient('claude-code')

function ymlServers(b: Sandbox): Record<string, unknown> | undefined {
  const file = join(b.project, 'dsh.yml')
  if (!existsSync(file)) return undefined
  return parseYaml(read(file))?.plugins?.['mcp-servers']?.servers
}

async function ok(b: Sandbox, args: string[]) {
  const run = await b.dsh(args)
  expect(run.code, `${args.join(' ')}: ${run.stderr}${run.stdout}`).toBe(0)
  return run
}

describe('claude-code --adopt-mcp-servers / --restore', { timeout: 120_000 }, () => {
  it('user scope: moved into dsh.yml, a variable-using server left with its reason, restored byte for byte', async () => {
    box = new Sandbox(typeof claude === 'string' ? { binDir: '', bin: '' } : claude)
    const b = box
    const state = join(b.home, '.claude.json')
    if (typeof claude === 'string') {
      // the client cannot be installed here: the file as claude mcp add 2.1.332 writes it
      writeFileSync(state, `${JSON.stringify({ mcpServers: { mem: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} }, web: { type: 'http', url: 'https://example.com/mcp' }, gh: { type: 'stdio', command: 'gh-mcp', args: [], env: { TOKEN: '${GH_TOKEN}' } } } }, null, 2)}\n`)
    } else {
      for (const args of [['--scope', 'user', 'mem', '--', 'npx', '-y', '@modelcontextprotocol/server-memory'], ['--transport', 'http', '--scope', 'user', 'web', 'https://example.com/mcp'], ['--scope', 'user', 'gh', '-e', 'TOKEN=${GH_TOKEN}', '--', 'gh-mcp']]) {
        const run = spawnSync(claude.bin, ['mcp', 'add', ...args], { cwd: b.project, env: b.env(), encoding: 'utf8', timeout: 60_000 })
        expect(run.status, run.stderr).toBe(0)
      }
    }
    await ok(b, ['setup', 'claude-code'])
    const before = read(state)

    const dry = await ok(b, ['setup', 'claude-code', '--adopt-mcp-servers', '--dry-run'])
    expect(dry.stdout).toContain('would move mem, web')
    expect(read(state)).toBe(before)
    expect(existsSync(join(b.project, 'dsh.yml'))).toBe(false)

    const adopt = await ok(b, ['setup', 'claude-code', '--adopt-mcp-servers'])
    expect(adopt.stdout).toMatch(/left gh in Claude Code's config: it refers to a variable/)
    expect(ymlServers(b)).toEqual({ mem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, web: { url: 'https://example.com/mcp' } })
    const after = JSON.parse(read(state)).mcpServers
    expect(Object.keys(after).sort()).toEqual(['dsh', 'gh'])
    // the dsh.yml keeps the default set it replaces
    expect(parseYaml(read(join(b.project, 'dsh.yml'))).plugins).toHaveProperty('workspace-tools')

    const adopted = { state: read(state), yml: read(join(b.project, 'dsh.yml')) }
    const again = await ok(b, ['setup', 'claude-code', '--adopt-mcp-servers'])
    expect(again.stdout).not.toContain('moved')
    expect({ state: read(state), yml: read(join(b.project, 'dsh.yml')) }).toEqual(adopted)

    const dryRestore = await ok(b, ['setup', 'claude-code', '--restore', '--dry-run'])
    expect(dryRestore.stdout).toContain('would put back mem, web')
    expect(read(state)).toBe(adopted.state)

    await ok(b, ['setup', 'claude-code', '--restore'])
    expect(read(state)).toBe(before)
    expect(existsSync(join(b.project, 'dsh.yml'))).toBe(false)
    expect(readdirSync(join(b.home, '.local', 'state', 'dsh', 'adopted-mcp-servers'))).toEqual([])
    const twice = await ok(b, ['setup', 'claude-code', '--restore'])
    expect(twice.stdout).toContain('nothing to restore')
    expect(read(state)).toBe(before)
  })

  it('restore after the client changed its file since: the servers back, the client\'s change kept; an existing dsh.yml back byte for byte', async () => {
    box = new Sandbox({ binDir: '', bin: '' })
    const b = box
    const state = b.write('.claude.json', `${JSON.stringify({ numStartups: 1, projects: { [b.project]: { mcpServers: { loc: { type: 'stdio', command: 'node', args: ['s.js'] } } } } }, null, 2)}\n`, b.home)
    const yml = b.write('dsh.yml', '# my config\nsandbox:\n  mode: workspace-write   # keep\nplugins:\n  workspace-tools:\n  mcp-servers:\n')
    const ymlBefore = read(yml)
    await ok(b, ['setup', 'claude-code', '--scope', 'local', '--adopt-mcp-servers'])
    expect(read(yml)).toContain('# my config')
    // the yaml package keeps comments (their spacing its own)
    expect(read(yml)).toMatch(/mode: workspace-write +# keep/)
    expect(ymlServers(b)).toEqual({ loc: { command: 'node', args: ['s.js'] } })
    // Claude Code rewrites its state as it runs
    const changed = JSON.parse(read(state))
    changed.numStartups = 2
    writeFileSync(state, JSON.stringify(changed, null, 2))
    await ok(b, ['setup', 'claude-code', '--restore'])
    const restored = JSON.parse(read(state))
    expect(restored.numStartups).toBe(2)
    expect(restored.projects[b.project].mcpServers.loc).toEqual({ type: 'stdio', command: 'node', args: ['s.js'] })
    expect(read(yml)).toBe(ymlBefore)
  })
})

describe('codex --adopt-mcp-servers / --restore', { timeout: 60_000 }, () => {
  it('the [mcp_servers.<name>] tables move (comments and other tables kept), and come back byte for byte', async () => {
    box = new Sandbox({ binDir: '', bin: '' })
    const b = box
    const config = b.write('.codex/config.toml', '# mine\nmodel = "o4"\n\n[mcp_servers.cx]\ncommand = "node"\nargs = ["srv.js"]\n\n[mcp_servers.cx.env]\nK = "v"\n\n[mcp_servers.tok]\nurl = "https://example.com/mcp"\nbearer_token_env_var = "TOK"\n\n[profiles.x]\nmodel = "o3"\n', b.home)
    await ok(b, ['setup', 'codex'])
    const before = read(config)
    const adopt = await ok(b, ['setup', 'codex', '--adopt-mcp-servers'])
    expect(adopt.stdout).toMatch(/left tok in Codex's config: it takes variables by name \(bearer_token_env_var\)/)
    expect(ymlServers(b)).toEqual({ cx: { command: 'node', args: ['srv.js'], env: { K: 'v' } } })
    const now = read(config)
    expect(now).not.toContain('[mcp_servers.cx')
    expect(now).toContain('# mine')
    expect(now).toContain('[mcp_servers.tok]')
    expect(now).toContain('[profiles.x]')
    // what restore needs is kept outside the workspace, where confined commands cannot change it
    expect(readdirSync(b.project)).toEqual(['dsh.yml'])
    await ok(b, ['setup', 'codex', '--restore'])
    expect(read(config)).toBe(before)
    expect(existsSync(join(b.project, 'dsh.yml'))).toBe(false)
  })

  it('restore after Codex\'s file changed since: the tables back (sub-tables too), the change kept', async () => {
    box = new Sandbox({ binDir: '', bin: '' })
    const b = box
    const config = b.write('.codex/config.toml', 'model = "o4"\n\n[mcp_servers.cx]\ncommand = "node"\nargs = ["srv.js"]\n\n[mcp_servers.cx.env]\nK = "v"\n', b.home)
    await ok(b, ['setup', 'codex', '--adopt-mcp-servers'])
    writeFileSync(config, read(config).replace('model = "o4"', 'model = "o5"'))
    await ok(b, ['setup', 'codex', '--restore'])
    const { parse } = await import('smol-toml')
    const doc = parse(read(config)) as Record<string, any>
    expect(doc.model).toBe('o5')
    expect(doc.mcp_servers.cx).toEqual({ command: 'node', args: ['srv.js'], env: { K: 'v' } })
    expect(existsSync(join(b.project, 'dsh.yml'))).toBe(false)
  })
})

describe('dsh doctor\'s hint', { timeout: 60_000 }, () => {
  it('names the servers the client still starts itself, without changing the exit code; none after adopting them', async () => {
    const bin = new Sandbox({ binDir: '', bin: '' })
    box = bin
    const stubs = join(bin.root, 'bin')
    mkdirSync(stubs)
    writeFileSync(join(stubs, 'claude'), '#!/bin/sh\nexit 0\n')
    chmodSync(join(stubs, 'claude'), 0o755)
    ;(bin as unknown as { client: { binDir: string } }).client.binDir = stubs
    bin.write('.claude.json', JSON.stringify({ mcpServers: { mem: { type: 'stdio', command: 'npx', args: ['server-memory'] } } }), bin.home)
    await ok(bin, ['setup', 'claude-code'])
    const before = await bin.dsh(['doctor', 'claude-code'])
    expect(before.code, before.stdout).toBe(0)
    expect(before.stdout).toMatch(/hint: the client starts MCP servers itself.*mem in .*\.claude\.json.*--adopt-mcp-servers/)
    await ok(bin, ['setup', 'claude-code', '--adopt-mcp-servers'])
    const after = await bin.dsh(['doctor', 'claude-code'])
    expect(after.code, after.stdout).toBe(0)
    expect(after.stdout).not.toContain('hint:')
  })
})
