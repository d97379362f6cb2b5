/**
 * `dsh permissions check` as a real child process, in a project whose
 * .claude/settings.json holds rules (and a temporary HOME): the decision, the
 * rule and the file, nothing run, and bad input refused by name.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { runCli } from './cli.js'

const root = join(import.meta.dirname, '../..')

let dir: string

/** The CLI in the project directory, with a temporary HOME (no user settings file). */
const dsh = (args: string[]) => runCli(args, dir, { HOME: join(dir, 'home') })

beforeAll(() => {
  if (!existsSync(join(root, 'core/dsh/lib/cli/permissions-command.js'))) throw new Error('core/dsh/lib is not built: run `npx tsc -b` first')
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-perm-cli-'))
  mkdirSync(join(dir, 'home'))
  mkdirSync(join(dir, '.claude'))
  writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify({ permissions: { allow: ['Bash(npm run test:*)'], deny: ['Bash(rm:*)', 'Read(./.env)'] } }))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/**
 * A dsh.yml of the tools and the rules alone: the built-in default set also loads hooks-claude-code,
 * which (rightly) refuses this project's .claude/settings.json where the machine's backend cannot keep
 * it read-only (Landlock alone) — that refusal is hooks-claude-code's own spec; this one is about rules.
 */
const rulesOnly = () => writeFileSync(join(dir, 'dsh.yml'), 'plugins:\n  workspace-tools: {}\n  claude-code-permissions: {}\n')

describe('dsh permissions check', () => {
  it('--exec: what the rules decide for one exec inside a confined call (a shell\'s script read, the program by its real path)', async () => {
    rulesOnly()
    const denied = await dsh(['permissions', 'check', '--exec', '--json', '--', 'sh', '-c', 'rm -rf x'])
    expect(denied.code, denied.stderr).toBe(0)
    expect(JSON.parse(denied.stdout)).toMatchObject({ by: 'exec', decision: 'deny', rule: 'Bash(rm:*)', argv: ['sh', '-c', 'rm -rf x'], program: expect.stringMatching(/^\/.*(sh|dash|bash)$/) })
    const plain = await dsh(['permissions', 'check', '--exec', '--', 'ls', '-l'])
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/^exec: +\["ls","-l"\]/m)
    expect(plain.stdout).toMatch(/^decision: allow$/m)
    const none = await dsh(['permissions', 'check', '--exec'])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/missing the program/)
  }, 120_000)

  it('prints the decision, the rule and its file, and runs nothing', async () => {
    rulesOnly()
    const denied = await dsh(['permissions', 'check', 'bash', '{"command":"npm run test && rm -rf /"}'])
    expect(denied.stderr).toMatch(/^dsh permissions check: (config \S+|no dsh.yml here, using the built-in default set .*)\n$/)
    expect(denied.code).toBe(0)
    expect(denied.stdout).toContain('decision: deny')
    expect(denied.stdout).toContain('rule:     Bash(rm:*)')
    expect(denied.stdout).toContain(`source:   ${join(dir, '.claude/settings.json')}`)
    const allowed = await dsh(['permissions', 'check', 'bash', '{"command":"npm run test -- --watch"}', '--json'])
    expect(JSON.parse(allowed.stdout)).toMatchObject({ decision: 'allow', rule: 'Bash(npm run test:*)', mode: 'default', name: 'bash', ruleTool: 'Bash' })
    const byMode = JSON.parse((await dsh(['permissions', 'check', 'write', '{"file_path":"a.txt","content":"x"}', '--json'])).stdout)
    expect(byMode).toMatchObject({ decision: 'ask', mode: 'default' })
    expect(byMode.rule).toBeUndefined()
    expect((await dsh(['permissions', 'check', 'read', '{"file_path":".env"}'])).stdout).toContain('decision: deny')
    // nothing ran and no session was written
    expect(existsSync(join(dir, '.dsh')) ? readdirSync(join(dir, '.dsh')) : []).not.toContain('sessions')
  }, 240_000)

  it('refuses a bad rule by file, index and rule, and bad usage, with exit 2', async () => {
    rulesOnly()
    writeFileSync(join(dir, '.claude/settings.local.json'), JSON.stringify({ permissions: { ask: ['Bash(git push:*)', 'Bash(npm'] } }))
    const bad = await dsh(['permissions', 'check', 'bash', '{"command":"ls"}'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(`${join(dir, '.claude/settings.local.json')}: permissions.ask[1]: rule "Bash(npm" is not of the form Tool or Tool(specifier)`)
    expect((await dsh(['permissions', 'check'])).code).toBe(2)
    const json = await dsh(['permissions', 'check', 'bash', '{"command":'])
    expect(json.code).toBe(2)
    expect(json.stderr).toMatch(/not valid JSON/)
    expect((await dsh(['permissions', 'frobnicate'])).stderr).toMatch(/unknown subcommand "frobnicate"/)
  }, 240_000)
})

describe('dsh inspect', () => {
  it('shows the effective rules with the file each came from', async () => {
    writeFileSync(join(dir, 'dsh.yml'), 'plugins:\n  claude-code-permissions:\n    permissions:\n      ask: ["Bash(git push:*)"]\n')
    const run = await dsh(['inspect', '--no-probe'])
    expect(run.stderr).toMatch(/^dsh inspect: config \S+\n$/)
    expect(run.stdout).toContain('permissions (claude-code-permissions): mode default')
    expect(run.stdout).toMatch(new RegExp(`deny +Bash\\(rm:\\*\\)  — ${join(dir, '.claude/settings.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`))
    expect(run.stdout).toMatch(/ask +Bash\(git push:\*\)  — inline/)
    const json = JSON.parse((await dsh(['inspect', '--no-probe', '--json'])).stdout)
    expect(json.permissions.rules).toContainEqual({ list: 'allow', rule: 'Bash(npm run test:*)', source: join(dir, '.claude/settings.json') })
  }, 240_000)
})
