/**
 * The real Claude Code CLI (pinned, installed on first use outside the repository), headless
 * (`claude -p`) in a fresh HOME and a fresh, untrusted project, against the stand-in model:
 * after `dsh setup claude-code` (each scope) it calls dsh's tools with no other flag, its own
 * shell, file and web tools are gone from the model's list, dsh's results reach the model's next
 * request; in a trusted project (project scope) the project's own rules apply and dsh's tools
 * still run; a write under read-only comes back refused with the remedy, a user's deny rule and a
 * project hook hold.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { usePrivateTmpdir } from '../../private-tmpdir.ts'
import type { Installed } from './install.ts'
import { clientSpec, model, offered, runClient, Sandbox, toolResults, type Model } from './harness.ts'

usePrivateTmpdir('dsh-claude-code-')

const { installed, skip } = clientSpec('claude-code', 'Claude Code')

const BUILTINS = ['Bash', 'Monitor', 'Read', 'Edit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'WebFetch', 'WebSearch']

let box: Sandbox | undefined
let m: Model | undefined

/** The deferred tools Claude Code names in its system text ("available via ToolSearch"). */
function deferred(m: Model): string[] {
  const text = JSON.stringify(m.agentRequests()[0]?.body?.messages ?? [])
  const list = /available via ToolSearch[^]*?:\\n((?:[A-Za-z_]+\\n)+)/.exec(text)
  return list ? list[1]!.split('\\n').filter(Boolean) : []
}

describe.skipIf(skip)('Claude Code with dsh (headless)', { timeout: 120_000 }, () => {
  it.each(['user', 'local', 'project'] as const)('setup --scope %s, then a bash call: dsh runs it, its result reaches the model, the built-ins are gone', async (scope) => {
    box = new Sandbox(installed as Installed)
    expect((await box.dsh(['setup', 'claude-code', '--scope', scope])).code).toBe(0)
    m = await model([{ call: 'bash', input: { command: 'echo hi-from-dsh; pwd' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'say hi')
    expect(run.code, run.stderr).toBe(0)
    const [result] = toolResults(m)
    expect(result).toContain('hi-from-dsh')
    expect(result).toContain(box.project)
    const tools = offered(m)
    expect(tools).toContain('mcp__dsh__bash')
    // the list the check below reads is there (the MCP tools are loaded, the rest deferred)
    expect(deferred(m)).toContain('CronCreate')
    for (const builtin of BUILTINS) {
      expect(tools).not.toContain(builtin)
      expect(deferred(m)).not.toContain(builtin)
    }
    // the session log is dsh's: the call went through it
    expect(existsSync(join(box.project, '.dsh'))).toBe(true)
  })

  it('setup --scope project in a trusted project: dsh\'s bash, read, grep, glob and ls all run, the project\'s deny of the built-ins reaching none of them', async () => {
    box = new Sandbox(installed as Installed)
    // the trust dialog accepted once, as Claude Code records it
    box.write('.claude.json', JSON.stringify({ projects: { [box.project]: { hasTrustDialogAccepted: true } } }), box.home)
    box.write('notes.txt', 'needle in the notes\n')
    expect((await box.dsh(['setup', 'claude-code', '--scope', 'project'])).code).toBe(0)
    // the project settings deny the built-ins by their bare names: in a trusted project Claude Code applies them, and so does dsh
    expect(JSON.parse(readFileSync(join(box.project, '.claude/settings.json'), 'utf8')).permissions.deny).toContain('Bash')
    m = await model([
      { call: 'bash', input: { command: 'echo trusted-bash' } },
      { call: 'read', input: { file_path: 'notes.txt' } },
      { call: 'grep', input: { pattern: 'needle', output_mode: 'content' } },
      { call: 'glob', input: { pattern: '*.txt' } },
      { call: 'ls', input: { path: '.' } },
      { text: 'finished' },
    ])
    const run = await runClient(box, 'claude-code', m, 'look around')
    expect(run.code, run.stderr).toBe(0)
    const results = toolResults(m)
    expect(results, JSON.stringify(results)).toHaveLength(5)
    const [bash, read, grep, glob, ls] = results
    expect(bash).toContain('trusted-bash')
    expect(read).toContain('needle in the notes')
    expect(grep, grep).toContain('needle in the notes')
    expect(glob).toContain('notes.txt')
    expect(ls, ls).toContain('notes.txt')
    for (const result of results) expect(result).not.toMatch(/denied|haven't granted/i)
    for (const builtin of BUILTINS) expect(offered(m)).not.toContain(builtin)
  })

  it('a write under read-only comes back refused with the remedy, and nothing is written', async () => {
    box = new Sandbox(installed as Installed)
    await box.dsh(['setup', 'claude-code'])
    m = await model([{ call: 'write', input: { file_path: 'made.txt', content: 'x' } }, { call: 'bash', input: { command: 'echo y > made-by-bash.txt' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'write a file')
    expect(run.code, run.stderr).toBe(0)
    const [write, bash] = toolResults(m)
    expect(write).toMatch(/needs the sandbox mode workspace-write/)
    expect(write).toMatch(/To allow it/)
    expect(bash).toMatch(/Read-only file system/)
    // Claude Code hands the model the structured value, not the text: the remedy is in it too
    expect(bash).toMatch(/To allow them: run the session in workspace-write/)
    expect(existsSync(join(box.project, 'made.txt'))).toBe(false)
    expect(existsSync(join(box.project, 'made-by-bash.txt'))).toBe(false)
  })

  it('a read of a long file stays inline (not moved to a file by Claude Code) and says where to read on', async () => {
    box = new Sandbox(installed as Installed)
    box.write('long.txt', Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(60)}`).join('\n'))
    await box.dsh(['setup', 'claude-code'])
    m = await model([{ call: 'read', input: { file_path: 'long.txt' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'read it')
    expect(run.code, run.stderr).toBe(0)
    const [read] = toolResults(m)
    expect(read).not.toMatch(/persisted-output|Output too large/)
    expect(read).toContain('line 0 ')
    expect(read).toMatch(/more lines \(workspace-tools maxReadOutputBytes, 40000 bytes, reached\); read on with offset \d+/)
  })

  it('a user\'s deny rule Bash(curl:*) denies dsh\'s bash, naming the rule; the built-in deny rules do not', async () => {
    box = new Sandbox(installed as Installed)
    box.write('.claude/settings.json', JSON.stringify({ permissions: { deny: ['Bash(curl:*)'] } }, null, 2), box.home)
    await box.dsh(['setup', 'claude-code'])
    m = await model([{ call: 'bash', input: { command: 'curl -s http://127.0.0.1:9/' } }, { call: 'bash', input: { command: 'echo still-allowed' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'fetch')
    expect(run.code, run.stderr).toBe(0)
    const [curl, echo] = toolResults(m)
    expect(curl).toContain('Bash(curl:*)')
    expect(curl).toMatch(/denied/)
    expect(echo).toContain('still-allowed')
  })

  it('a project hook blocks rm -rf through dsh (once), and the file stays', async () => {
    box = new Sandbox(installed as Installed)
    box.write('keep.txt', 'keep')
    const hook = box.write('.claude/block-rm.sh', `#!/bin/sh\necho ran >> "${join(box.root, 'hook-runs')}"\nif grep -q 'rm -rf' ; then echo 'no rm -rf here' >&2; exit 2; fi\n`)
    await import('node:fs').then((fs) => fs.chmodSync(hook, 0o755))
    box.write('.claude/settings.json', JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] } }, null, 2))
    await box.dsh(['setup', 'claude-code'])
    m = await model([{ call: 'bash', input: { command: 'rm -rf keep.txt' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'clean up')
    expect(run.code, run.stderr).toBe(0)
    const [result] = toolResults(m)
    expect(result).toContain('no rm -rf here')
    expect(readFileSync(join(box.project, 'keep.txt'), 'utf8')).toBe('keep')
    expect(readFileSync(join(box.root, 'hook-runs'), 'utf8').trim().split('\n')).toHaveLength(1)
  })

  it('the README\'s one-session flags (no file changed) work headless: dsh\'s bash runs, the built-ins are gone', async () => {
    box = new Sandbox(installed as Installed)
    const line = /`claude (--mcp-config [^`]+)`/.exec(readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8'))
    expect(line).not.toBeNull()
    // the words as a shell splits them (single- and double-quoted); the server run by this checkout's path, as npx would in a project that has dsh
    const args = [...line![1]!.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((w) => w[1] ?? w[2] ?? w[3]!)
    const config = JSON.parse(args[1]!)
    config.mcpServers.dsh = { command: process.execPath, args: [join(import.meta.dirname, '../../../core/dsh/bin/dsh.cjs'), 'mcp'] }
    args[1] = JSON.stringify(config)
    m = await model([{ call: 'bash', input: { command: 'echo one-session' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'say hi', { args })
    expect(run.code, run.stderr).toBe(0)
    expect(toolResults(m)[0]).toContain('one-session')
    for (const builtin of BUILTINS) expect(offered(m)).not.toContain(builtin)
  })

  it('without dsh setup (the README\'s old recipe: allow in the untrusted project\'s settings), headless Claude Code refuses dsh\'s tools', async () => {
    // the failure setup exists for: kept as a check that the stand-in and the client still behave as found
    box = new Sandbox(installed as Installed)
    box.write('.mcp.json', JSON.stringify({ mcpServers: { dsh: { type: 'stdio', command: process.execPath, args: [join(import.meta.dirname, '../../../core/dsh/bin/dsh.cjs'), 'mcp'] } } }))
    box.write('.claude/settings.json', JSON.stringify({ permissions: { allow: ['mcp__dsh'] }, enabledMcpjsonServers: ['dsh'] }))
    m = await model([{ call: 'bash', input: { command: 'echo hi' } }, { text: 'finished' }])
    const run = await runClient(box, 'claude-code', m, 'say hi')
    expect(run.code, run.stderr).toBe(0)
    expect(toolResults(m).join('\n')).toMatch(/haven't granted it yet|not available|No such tool/)
  })
})
