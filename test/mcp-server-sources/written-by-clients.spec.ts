/**
 * Files written by the real clients (`claude mcp add`, `codex mcp add`, the pinned versions of
 * test/e2e/clients, installed from npm outside the repository) read back as the servers added.
 * Skipped, with the reason, when a client cannot be installed here.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readServerSources } from '@dsh/mcp-server-sources'
import { installClient } from '../e2e/clients/install.ts'
import { tempDirs } from '../temp-dirs.ts'

const temp = tempDirs()
afterEach(() => temp.removeAll())

const claude = installClient('claude-code')
const codex = installClient('codex')

function dirs() {
  const root = temp.make('dsh-sources-cli-')
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(project)
  return { home, project }
}

function run(bin: string, args: string[], cwd: string, home: string): void {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }
  const out = spawnSync(bin, args, { cwd, env, encoding: 'utf8', timeout: 60_000 })
  expect(out.status, `${bin} ${args.join(' ')}: ${out.stderr}${out.stdout}`).toBe(0)
}

describe.skipIf(typeof claude === 'string')(`claude mcp add${typeof claude === 'string' ? ` (skipped: ${claude})` : ''}`, { timeout: 120_000 }, () => {
  it('user, local and project servers, stdio and http, with variables, as Claude Code wrote them', async () => {
    const { bin } = claude as { bin: string }
    const { home, project } = dirs()
    run(bin, ['mcp', 'add', '--scope', 'user', 'gh', '-e', 'TOKEN=${GH_TOKEN}', '--', 'npx', '-y', '@modelcontextprotocol/server-github'], project, home)
    run(bin, ['mcp', 'add', '--scope', 'local', 'loc', '--', 'node', 'server.js'], project, home)
    run(bin, ['mcp', 'add', '--scope', 'project', 'proj', '--', 'run-it', '${HOME}/x'], project, home)
    run(bin, ['mcp', 'add', '--transport', 'http', '--scope', 'user', 'web', 'https://example.com/mcp', '--header', 'Authorization: Bearer ${TOK:-none}'], project, home)
    run(bin, ['mcp', 'add', '--transport', 'sse', '--scope', 'user', 'old', 'https://example.com/sse'], project, home)
    const { servers, problems } = await readServerSources(['mcp.json', 'claude-code'], { cwd: project, home, env: { GH_TOKEN: 'g', HOME: home } })
    expect(servers.gh).toEqual({ source: 'claude-code', file: join(home, '.claude.json'), config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { TOKEN: 'g' } } })
    expect(servers.loc!.config).toEqual({ command: 'node', args: ['server.js'] })
    expect(servers.proj).toEqual({ source: 'mcp.json', file: join(project, '.mcp.json'), config: { command: 'run-it', args: [`${home}/x`] } })
    expect(servers.web!.config).toEqual({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer none' } })
    expect(problems).toEqual([expect.objectContaining({ source: 'claude-code', server: 'old', line: expect.any(Number), message: expect.stringContaining('SSE server') })])
  })
})

describe.skipIf(typeof codex === 'string')(`codex mcp add${typeof codex === 'string' ? ` (skipped: ${codex})` : ''}`, { timeout: 120_000 }, () => {
  it('stdio with env and http with a bearer token variable, as Codex wrote them', async () => {
    const { bin } = codex as { bin: string }
    const { home, project } = dirs()
    run(bin, ['mcp', 'add', 'cx', '--env', 'K=v', '--', 'node', 'srv.js', '--a'], project, home)
    run(bin, ['mcp', 'add', 'cxh', '--url', 'https://example.com/mcp', '--bearer-token-env-var', 'TOK'], project, home)
    const file = join(home, '.codex', 'config.toml')
    const { servers, problems } = await readServerSources(['codex'], { cwd: project, home, env: { TOK: 't' } })
    expect(problems).toEqual([])
    expect(servers.cx).toEqual({ source: 'codex', file, config: { command: 'node', args: ['srv.js', '--a'], env: { K: 'v' } } })
    expect(servers.cxh!.config).toEqual({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } })
    const unset = await readServerSources(['codex'], { cwd: project, home, env: {} })
    expect(unset.problems).toEqual([expect.objectContaining({ server: 'cxh', line: expect.any(Number), message: expect.stringContaining('TOK, which is not set') })])
  })
})
