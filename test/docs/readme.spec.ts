// README.md's snippets for agent users, extracted from the README (not copied): the setup
// commands come first; each block marked `<!-- setup: … -->` is exactly what `dsh setup` writes
// into a fresh HOME (the server's command and args aside, which name this machine's node and
// dsh); every fenced JSON and TOML block parses; the one-session flags name the same built-in
// tools as the deny list and allow dsh's tools, and every tool of the default set has its
// Claude Code counterpart denied (LS aside: Claude Code 2.1 has no such tool and warns about a
// rule naming it).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLAUDE_TOOL_NAMES } from '@dsh/claude-code-settings'
import { createKernel, type Kernel } from 'dsh'
// the setup plans and the default set are private to dsh: read here on purpose, to compare the README with them
import { defaultSet } from '../../core/dsh/src/config/default-set.js'
import { claudeCodePlan } from '../../core/dsh/src/clients/claude-code-setup.js'
import { codexPlan } from '../../core/dsh/src/clients/codex-setup.js'
import { CLAUDE_BUILTINS, serverCommand } from '../../core/dsh/src/clients/recipe.js'

const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8')
const blocks = (lang: string) => [...readme.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]!)
/** The fenced block right after `<!-- setup: name -->`. */
function marked(name: string): string {
  const m = new RegExp(`<!-- setup: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)^\`\`\``, 'm').exec(readme)
  if (!m) throw new Error(`README.md has no block marked <!-- setup: ${name} -->`)
  return m[1]!
}

let kernel: Kernel
let tools: string[]
let home: string
beforeAll(async () => {
  kernel = await createKernel(defaultSet())
  tools = kernel.ctx.tools.schemas().map((s) => s.name)
  home = mkdtempSync(join(tmpdir(), 'dsh-readme-'))
})
afterAll(() => {
  rmSync(home, { recursive: true, force: true })
  return kernel.dispose()
})

/** What setup writes, with the server's command and args as the README shows them. */
function asShown<T>(value: T, shown: { command: string; args: string[] }): T {
  const { command, args } = serverCommand()
  return JSON.parse(JSON.stringify(value).replaceAll(JSON.stringify(command), JSON.stringify(shown.command)).replaceAll(JSON.stringify(args), JSON.stringify(shown.args)))
}

describe('README.md snippets', () => {
  it('starts with the quick start; the agent section starts with the setup commands', () => {
    expect(readme.startsWith('# dsh')).toBe(true)
    expect(blocks('sh')[0]).toMatch(/^npm install && npx dsh demo\b.*\nnpm test\b/)
    const section = readme.slice(readme.indexOf('## Give an agent dsh\'s tools'))
    const first = /```sh\n([\s\S]*?)```/.exec(section)![1]!
    expect(first).toMatch(/^npx dsh setup claude-code\b/m)
    expect(first).toMatch(/^npx dsh setup codex\b/m)
    expect(first).toMatch(/^npx dsh doctor\b/m)
  })

  it('every JSON and TOML block parses', () => {
    for (const [i, text] of blocks('json').entries()) expect(() => JSON.parse(text), `JSON block ${i + 1}`).not.toThrow()
    for (const [i, text] of blocks('toml').entries()) expect(() => parseToml(text), `TOML block ${i + 1}`).not.toThrow()
  })

  it('the Claude Code blocks are what dsh setup claude-code writes', () => {
    const [state, settings] = claudeCodePlan('user', { home, project: join(home, 'project'), env: {} })
    expect(JSON.parse(marked('claude-code user settings'))).toEqual(JSON.parse(settings!.after))
    const server = JSON.parse(marked('claude-code user server'))
    expect(server).toEqual(asShown(JSON.parse(state!.after), server.mcpServers.dsh))
  })

  it('the Codex block is what dsh setup codex writes', () => {
    const [config] = codexPlan({ home, env: {} })
    const shown = parseToml(marked('codex config')) as any
    expect(shown).toEqual(asShown(JSON.parse(JSON.stringify(parseToml(config!.after))), shown.mcp_servers.dsh))
  })

  it('the deny list covers the Claude Code counterpart of every default-set tool; the one-session flags match it and allow dsh', () => {
    const deny = JSON.parse(marked('claude-code user settings')).permissions.deny as string[]
    expect(deny).toEqual([...CLAUDE_BUILTINS])
    const names = tools.flatMap((t) => (Object.hasOwn(CLAUDE_TOOL_NAMES, t) ? [CLAUDE_TOOL_NAMES[t]!] : []))
    for (const name of names.filter((n) => n !== 'LS')) expect(deny).toContain(name)
    const line = /--disallowedTools ((?:"[^"]+" ?)+)--allowedTools "([^"]+)"/.exec(readme)
    expect(line).not.toBeNull()
    expect([...line![1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1])).toEqual(deny)
    expect(line![2]).toBe('mcp__dsh')
  })
})
