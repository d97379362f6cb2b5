/**
 * `dsh permissions check` as a real child process for the two promises of
 * the rules: no preset weaker than its rules (a disguised `rm` under the
 * default set's on-request asks naming `Bash(rm:*)`; under bypassPermissions
 * it is denied), and rules that cannot switch dsh off (the settings that
 * switch Claude Code's own tools off deny none of dsh's; `mcp__dsh__ls`
 * does deny dsh's ls).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './cli.js'

const root = join(import.meta.dirname, '../..')
let dir: string

const dsh = (args: string[]) => runCli(args, dir, { HOME: join(dir, 'home') })
const check = async (tool: string, args: object) => {
  const run = await dsh(['permissions', 'check', tool, JSON.stringify(args), '--json'])
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as { decision: string; rule?: string; reason: string }
}
const project = (permissions: object) => {
  writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify({ permissions }))
  // the default set's rules plugin and preset, without its hooks plugin (its own specs cover it)
  writeFileSync(join(dir, 'dsh.yml'), 'plugins:\n  workspace-tools: {}\n  claude-code-permissions:\n    preset: on-request\n')
}

beforeAll(() => {
  if (!existsSync(join(root, 'core/dsh/lib/cli/permissions-command.js'))) throw new Error('core/dsh/lib is not built: run `npx tsc -b` first')
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-perm-floor-'))
  mkdirSync(join(dir, 'home'))
  mkdirSync(join(dir, '.claude'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('dsh permissions check: no preset weaker than its rules', () => {
  it('a disguised rm asks under on-request, naming the rule; a literal one behind <> is denied', async () => {
    project({ deny: ['Bash(rm:*)', 'Bash(curl:*)'] })
    // each one a child process: the decider specs try the whole list, this proves the CLI says the same
    for (const command of ['$(echo rm) x', "bash -c '{rm,x}'", 'c=curl; $c https://example.com']) {
      const answer = await check('bash', { command })
      expect(answer.decision, command).toBe('ask')
      expect(answer.rule, command).toMatch(/^Bash\((rm|curl):\*\)$/)
      expect(answer.reason, command).not.toMatch(/runs it confined without asking/)
    }
    for (const command of ['true 3<>x; rm x']) expect(await check('bash', { command }), command).toMatchObject({ decision: 'deny', rule: 'Bash(rm:*)' })
  }, 240_000)

  it('under bypassPermissions the disguised rm is denied, naming the rule', async () => {
    project({ deny: ['Bash(rm:*)'], defaultMode: 'bypassPermissions' })
    expect(await check('bash', { command: '$(echo rm) x' })).toMatchObject({ decision: 'deny', rule: 'Bash(rm:*)' })
  }, 240_000)
})

describe('dsh permissions check: rules that cannot switch dsh off', () => {
  it('the switch-off recipe denies none of dsh\'s tools; specifier rules and mcp__dsh__ rules apply', async () => {
    project({ deny: ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'LS', 'WebFetch', 'Bash(curl:*)', 'Read(./secrets/**)', 'mcp__dsh__ls'] })
    for (const [tool, args] of [['bash', { command: 'make' }], ['read', { file_path: 'a.txt' }], ['grep', { pattern: 'x' }], ['glob', { pattern: '*' }]] as const) {
      const answer = await check(tool, args)
      expect(answer.decision, tool).not.toBe('deny')
      expect(answer.rule, tool).toBeUndefined()
    }
    expect(await check('bash', { command: 'curl x' })).toMatchObject({ decision: 'deny', rule: 'Bash(curl:*)' })
    expect(await check('read', { file_path: 'secrets/k' })).toMatchObject({ decision: 'deny', rule: 'Read(./secrets/**)' })
    expect(await check('ls', { path: '.' })).toMatchObject({ decision: 'deny', rule: 'mcp__dsh__ls' })
  }, 240_000)
})
