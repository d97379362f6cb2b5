/**
 * The readers of the clients' MCP server files, on real files: each client's shape, its variable
 * expansion, precedence on a shared name, and bad input (each a problem with file and line, the
 * other servers still read).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readServerSources, type SourceName } from '@dsh/mcp-server-sources'
import { tempDirs } from '../temp-dirs.ts'

const temp = tempDirs()
afterEach(() => temp.removeAll())

function box() {
  const root = temp.make('dsh-sources-')
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(join(home, '.codex'), { recursive: true })
  mkdirSync(project)
  return { home, project, read: (sources: SourceName[], env: Record<string, string | undefined> = {}) => readServerSources(sources, { cwd: project, home, env }) }
}

describe('.mcp.json', () => {
  it('reads stdio and http servers with ${VAR} and ${VAR:-default} expanded in command, args, env, url and headers', async () => {
    const b = box()
    writeFileSync(join(b.project, '.mcp.json'), JSON.stringify({
      mcpServers: {
        files: { type: 'stdio', command: '${BIN:-npx}', args: ['-y', 'server', '${ROOT}/x', '$ROOT'], env: { TOKEN: '${TOKEN}', MODE: '${MODE:-ro}' } },
        api: { type: 'http', url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${KEY:-none}' } },
        plain: { command: 'node', args: ['s.js'] },
      },
    }, null, 2))
    const { servers, problems } = await b.read(['mcp.json'], { ROOT: '/r', TOKEN: 't0k', HOST: 'example.com' })
    expect(problems).toEqual([])
    expect(servers.files).toEqual({ source: 'mcp.json', file: join(b.project, '.mcp.json'), config: { command: 'npx', args: ['-y', 'server', '/r/x', '$ROOT'], env: { TOKEN: 't0k', MODE: 'ro' } } })
    expect(servers.api!.config).toEqual({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer none' } })
    expect(servers.plain!.config).toEqual({ command: 'node', args: ['s.js'] })
  })

  it('an unset variable without default, an SSE server and an unknown shape are problems naming the server and line; the others are read', async () => {
    const b = box()
    writeFileSync(join(b.project, '.mcp.json'), '{\n  "mcpServers": {\n    "ok": { "command": "node" },\n    "gh": { "command": "gh-mcp", "env": { "T": "${GH_TOKEN}" } },\n    "old": { "type": "sse", "url": "https://example.com/sse" },\n    "odd": { "type": "ws", "url": "wss://x" },\n    "none": { "args": [] },\n    "bad": { "command": "x", "args": [1] }\n  }\n}\n')
    const { servers, problems } = await b.read(['mcp.json'])
    expect(Object.keys(servers)).toEqual(['ok'])
    const by = Object.fromEntries(problems.map((p) => [p.server, p]))
    expect(by.gh).toMatchObject({ source: 'mcp.json', line: 4 })
    expect(by.gh!.message).toContain('env.T uses ${GH_TOKEN}, and GH_TOKEN is not set')
    expect(by.old).toMatchObject({ line: 5 })
    expect(by.old!.message).toMatch(/SSE server.*stdio and Streamable HTTP only/)
    expect(by.odd!.message).toContain('type "ws"')
    expect(by.none!.message).toContain('neither a command')
    expect(by.bad!.message).toContain('args[0] must be a string, not 1')
  })

  it('unparseable JSON is one problem with the file and line, and the other sources are still read', async () => {
    const b = box()
    writeFileSync(join(b.project, '.mcp.json'), '{\n  "mcpServers": {\n    "a": { "command": "x" },\n  }\n}\n')
    writeFileSync(join(b.home, '.codex', 'config.toml'), '[mcp_servers.c]\ncommand = "c"\n')
    const { servers, problems } = await b.read(['mcp.json', 'codex'])
    expect(Object.keys(servers)).toEqual(['c'])
    expect(problems).toEqual([{ source: 'mcp.json', file: join(b.project, '.mcp.json'), line: 4, message: expect.stringMatching(/not valid JSON \(.*\); none of its servers are used/) }])
  })

  it('names that are Object.prototype keys are servers like any other, and dsh itself is never one', async () => {
    const b = box()
    writeFileSync(join(b.project, '.mcp.json'), '{"mcpServers":{"__proto__":{"command":"p"},"constructor":{"command":"c"},"dsh":{"command":"node","args":["dsh.cjs","mcp"]}}}')
    const { servers } = await b.read(['mcp.json'])
    expect(Object.keys(servers).sort()).toEqual(['__proto__', 'constructor'])
    expect(Object.getPrototypeOf(servers)).toBe(null)
    expect(servers.__proto__!.config).toEqual({ command: 'p' })
  })
})

describe('claude-code (~/.claude.json)', () => {
  it('reads the user servers and this project\'s, the project\'s winning on a shared name; CLAUDE_CONFIG_DIR moves the file', async () => {
    const b = box()
    const state = { mcpServers: { shared: { command: 'user' }, u: { type: 'stdio', command: 'u' } }, projects: { [b.project]: { mcpServers: { shared: { command: 'local' } } }, '/elsewhere': { mcpServers: { other: { command: 'o' } } } } }
    writeFileSync(join(b.home, '.claude.json'), JSON.stringify(state))
    const { servers, problems } = await b.read(['claude-code'])
    expect(servers.shared!.config).toEqual({ command: 'local' })
    expect(servers.u!.config).toEqual({ command: 'u' })
    expect(servers.other).toBeUndefined()
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('also in')])
    const moved = join(b.home, 'alt')
    mkdirSync(moved)
    writeFileSync(join(moved, '.claude.json'), JSON.stringify({ mcpServers: { alt: { command: 'a' } } }))
    const again = await b.read(['claude-code'], { CLAUDE_CONFIG_DIR: moved })
    expect(Object.keys(again.servers)).toEqual(['alt'])
    expect(again.servers.alt!.file).toBe(join(moved, '.claude.json'))
  })

  it('a missing file is no servers and no problem; a headersHelper is a problem', async () => {
    const b = box()
    expect(await b.read(['claude-code', 'mcp.json', 'codex'])).toEqual({ servers: {}, problems: [] })
    writeFileSync(join(b.home, '.claude.json'), JSON.stringify({ mcpServers: { h: { type: 'http', url: 'https://x', headersHelper: 'get-token.sh' } } }))
    const { servers, problems } = await b.read(['claude-code'])
    expect(servers).toEqual({})
    expect(problems[0]!.message).toContain('headersHelper')
  })
})

describe('codex (config.toml)', () => {
  it('reads command/args/env/env_vars/cwd and url/http_headers/env_http_headers/bearer_token_env_var; enabled = false is left out; CODEX_HOME moves it', async () => {
    const b = box()
    writeFileSync(join(b.home, '.codex', 'config.toml'), [
      'model = "x"',
      '[mcp_servers.s]',
      'command = "node"',
      'args = ["srv.js"]',
      'env_vars = ["FORWARD", "ABSENT"]',
      'cwd = "/work"',
      '[mcp_servers.s.env]',
      'K = "v"',
      '[mcp_servers.h]',
      'url = "https://example.com/mcp"',
      'bearer_token_env_var = "TOK"',
      'http_headers = { "X-Static" = "1" }',
      'env_http_headers = { "X-From-Env" = "HDR", "X-Unset" = "NOPE" }',
      '[mcp_servers.off]',
      'command = "off"',
      'enabled = false',
      '',
    ].join('\n'))
    const { servers, problems } = await b.read(['codex'], { FORWARD: 'f', TOK: 'secret', HDR: 'h' })
    expect(problems).toEqual([])
    expect(servers.s!.config).toEqual({ command: 'node', args: ['srv.js'], env: { FORWARD: 'f', K: 'v' }, cwd: '/work' })
    expect(servers.h!.config).toEqual({ url: 'https://example.com/mcp', headers: { 'X-Static': '1', 'X-From-Env': 'h', Authorization: 'Bearer secret' } })
    expect(servers.off).toBeUndefined()
    const home = join(b.home, 'codex-home')
    mkdirSync(home)
    writeFileSync(join(home, 'config.toml'), '[mcp_servers.moved]\ncommand = "m"\n')
    expect(Object.keys((await b.read(['codex'], { CODEX_HOME: home })).servers)).toEqual(['moved'])
  })

  it('Codex expands no ${VAR}: the text is kept as written', async () => {
    const b = box()
    writeFileSync(join(b.home, '.codex', 'config.toml'), '[mcp_servers.s]\ncommand = "${BIN}"\n')
    expect((await b.read(['codex'], { BIN: 'nope' })).servers.s!.config).toEqual({ command: '${BIN}' })
  })

  it('unparseable TOML is a problem with the line; an unset bearer token, a tool filter and both transports are problems with the server\'s line', async () => {
    const b = box()
    const file = join(b.home, '.codex', 'config.toml')
    writeFileSync(file, '[mcp_servers.a]\ncommand = "a"\nargs = [\n')
    const broken = await b.read(['codex'])
    expect(broken.servers).toEqual({})
    expect(broken.problems).toEqual([{ source: 'codex', file, line: expect.any(Number), message: expect.stringMatching(/^not valid TOML/) }])
    writeFileSync(file, '[mcp_servers.ok]\ncommand = "ok"\n\n[mcp_servers.h]\nurl = "https://x"\nbearer_token_env_var = "MISSING"\n\n[mcp_servers.f]\ncommand = "f"\ndisabled_tools = ["rm"]\n\n[mcp_servers.both]\ncommand = "b"\nurl = "https://b"\n')
    const { servers, problems } = await b.read(['codex'])
    expect(Object.keys(servers)).toEqual(['ok'])
    const by = Object.fromEntries(problems.map((p) => [p.server, p]))
    expect(by.h).toMatchObject({ line: 4, message: expect.stringContaining('MISSING, which is not set') })
    expect(by.f).toMatchObject({ line: 8, message: expect.stringContaining('disabled_tools') })
    expect(by.both).toMatchObject({ line: 12, message: expect.stringContaining('both command and url') })
  })
})

describe('precedence across sources', () => {
  it('the first source listed wins a shared name; a differing entry is reported, an equal one is not', async () => {
    const b = box()
    writeFileSync(join(b.project, '.mcp.json'), JSON.stringify({ mcpServers: { gh: { command: 'from-mcp-json' }, same: { command: 's' } } }))
    writeFileSync(join(b.home, '.codex', 'config.toml'), '[mcp_servers.gh]\ncommand = "from-codex"\n[mcp_servers.same]\ncommand = "s"\n')
    const first = await b.read(['mcp.json', 'codex'])
    expect(first.servers.gh).toMatchObject({ source: 'mcp.json', config: { command: 'from-mcp-json' } })
    expect(first.problems).toEqual([expect.objectContaining({ source: 'codex', server: 'gh', line: 1 })])
    const second = await b.read(['codex', 'mcp.json'])
    expect(second.servers.gh).toMatchObject({ source: 'codex', config: { command: 'from-codex' } })
  })
})
