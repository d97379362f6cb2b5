/**
 * Escalation on a real terminal: `dsh exec write` under a read-only sandbox in
 * a tmux pseudo-terminal, with a Claude Code hook answering `ask` (and, in the
 * second case, claude-code-permissions' default mode asking). The ui-approval
 * prompt names the mode the call will get; `y` writes the file once, `n`
 * leaves nothing written.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Tmux } from '../ui-approval/tmux.js'
import { CLI, exitCodeIn } from './cli.js'
import { CACHE_HOME } from '../cache-home.js'

const root = join(import.meta.dirname, '../..')
const hasTmux = (() => { try { execFileSync('tmux', ['-V']); return true } catch { return false } })()
if (!hasTmux) console.log('skipped: tmux is not installed, so no pseudo-terminal can drive the prompt')

const ASK = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'the team hook asks before writes' } })

function config(dir: string, withRules: boolean): string {
  return `sandbox:
  mode: read-only
approval:
  policy: ask
plugins:
  workspace-tools:
    workspace: ${dir}
  hooks-claude-code:
    workspace: ${dir}
    settingsFiles: []
    hooks:
      PreToolUse:
        - matcher: Write
          hooks:
            - type: command
              command: "cat ask.json"
${withRules ? `  claude-code-permissions:\n    workspace: ${dir}\n    settingsFiles: []\n` : ''}`
}

let dir: string
let tmux: Tmux | undefined

beforeAll(() => {
  if (!existsSync(join(root, 'core/dsh/lib/cli/permissions-command.js'))) throw new Error('core/dsh/lib is not built: run `npx tsc -b` first')
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-escalate-'))
})
afterEach(() => {
  tmux?.kill()
  tmux = undefined
  rmSync(dir, { recursive: true, force: true })
})

async function exec(withRules: boolean) {
  writeFileSync(join(dir, 'dsh.yml'), config(dir, withRules))
  // the hook prints its answer from a file (hooks run in the workspace)
  writeFileSync(join(dir, 'ask.json'), ASK)
  tmux = new Tmux()
  const exit = join(dir, 'exit-code')
  tmux.start(`HOME='${dir}' XDG_CACHE_HOME='${CACHE_HOME}' '${process.execPath}' '${CLI}' exec write '{"file_path":"${dir}/out.txt","content":"written once"}'; echo $? > '${exit}'; sleep 60`, dir)
  const screen = await tmux.waitFor((s) => s.includes('Approval needed') && s.trimEnd().endsWith('└'), 'the approval prompt', 60_000)
  const code = () => exitCodeIn(exit, () => tmux!.screen(), 60_000)
  return { tmux: tmux!, screen, code }
}

describe.skipIf(!hasTmux)('escalation on a terminal', () => {
  it('a hook asks; the prompt names workspace-write; y writes the file', async () => {
    const { tmux, screen, code } = await exec(false)
    expect(screen).toMatch(/Sandbox:\s+workspace-write for this call: allowing lets it write inside the workspace/)
    expect(screen).toMatch(/Reason:\s+the team hook asks before writes/)
    tmux.keys('y')
    expect(await code()).toBe(0)
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('written once')
  }, 240_000)

  it('with the permission rules too: one question with both reasons; n leaves nothing written', async () => {
    const { tmux, screen, code } = await exec(true)
    expect(screen).toMatch(/Sandbox:\s+workspace-write for this call/)
    expect(screen).toMatch(/mode default: Write is not allowed by a rule/)
    tmux.keys('n')
    await tmux.waitFor((s) => s.includes('Reason for denying'), 'the reason prompt', 30_000)
    tmux.keys('Enter')
    expect(await code()).toBe(1)
    expect(existsSync(join(dir, 'out.txt'))).toBe(false)
  }, 240_000)
})
