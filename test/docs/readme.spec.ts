// README.md's snippets for agent users: every fenced JSON and TOML block
// parses (TOML with smol-toml), the MCP server entries start `dsh mcp`, and
// the tool names in them are real: what a deny list switches off covers the
// agent's built-in counterpart of every tool of the default set, and an
// allow rule for dsh's MCP tools names the server or one of its tools.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLAUDE_TOOL_NAMES } from '@dsh/claude-code-settings'
import { createKernel, type Kernel } from 'dsh'
import { defaultSet } from '../../core/dsh/src/default-set.js'

const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8')
const blocks = (lang: string) => [...readme.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1])

let kernel: Kernel
let tools: string[]
beforeAll(async () => {
  kernel = await createKernel(defaultSet())
  tools = kernel.ctx.tools.schemas().map((s) => s.name)
})
afterAll(() => kernel.dispose())

/** Claude Code's names for the default set's tools (bash → Bash, …). */
const claudeNames = () => tools.flatMap((t) => (Object.hasOwn(CLAUDE_TOOL_NAMES, t) ? [CLAUDE_TOOL_NAMES[t]] : []))

function checkServer(entry: { command?: unknown; args?: unknown }, where: string): void {
  const argv = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])]
  expect(argv.every((a) => typeof a === 'string'), where).toBe(true)
  const text = argv.join(' ')
  // `npx dsh mcp`, or node running the CLI of a checkout
  expect(text, where).toMatch(/^(npx dsh mcp|node \S*core\/dsh\/bin\/dsh\.js mcp)( |$)/)
}

describe('README.md snippets', () => {
  it('has the JSON and TOML blocks for Claude Code and Codex', () => {
    expect(blocks('json').length).toBeGreaterThanOrEqual(2)
    expect(blocks('toml').length).toBeGreaterThanOrEqual(2)
    expect(readme.startsWith('# dsh')).toBe(true)
    expect(blocks('sh')[0]).toMatch(/^npm install && npx dsh demo\b.*\nnpm test\b/)
  })

  it('every JSON block parses; MCP entries start dsh mcp; names are real tools', () => {
    const names = new Set(claudeNames())
    expect([...names].sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'LS', 'Read', 'WebFetch', 'Write'])
    for (const [i, text] of blocks('json').entries()) {
      let value: any
      expect(() => (value = JSON.parse(text)), `JSON block ${i + 1}`).not.toThrow()
      if (value.mcpServers) checkServer(value.mcpServers.dsh, `JSON block ${i + 1}: mcpServers.dsh`)
      if (value.permissions) {
        const deny: string[] = value.permissions.deny ?? []
        for (const name of names) expect(deny, `JSON block ${i + 1} denies ${name}`).toContain(name)
        for (const rule of value.permissions.allow ?? []) {
          const m = /^mcp__dsh(?:__(.+))?$/.exec(rule)
          expect(m, `allow rule ${rule} names dsh's MCP server`).not.toBeNull()
          if (m?.[1]) expect(tools).toContain(m[1])
        }
      }
    }
  })

  it('every TOML block parses; the Codex server starts dsh mcp and the shell tools are switched off', () => {
    let server = false
    let shellOff = false
    for (const [i, text] of blocks('toml').entries()) {
      let value: any
      expect(() => (value = parseToml(text)), `TOML block ${i + 1}`).not.toThrow()
      if (value.mcp_servers) {
        checkServer(value.mcp_servers.dsh, `TOML block ${i + 1}: mcp_servers.dsh`)
        server = true
      }
      if (value.features) {
        expect(value.features).toMatchObject({ shell_tool: false, unified_exec: false })
        shellOff = true
      }
    }
    expect(server && shellOff).toBe(true)
  })

  it('the --disallowedTools line names the same built-in tools as the deny list', () => {
    const line = /claude --disallowedTools ((?:"[^"]+" ?)+)/.exec(readme)
    expect(line).not.toBeNull()
    const listed = [...line![1].matchAll(/"([^"]+)"/g)].map((m) => m[1])
    for (const name of claudeNames()) expect(listed).toContain(name)
    const deny = blocks('json').map((t) => JSON.parse(t)).find((v) => v.permissions)!.permissions.deny
    expect(listed).toEqual(deny)
  })
})
