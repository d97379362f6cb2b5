/**
 * The real Codex CLI (pinned, installed on first use outside the repository), headless
 * (`codex exec`) in a fresh HOME and a fresh project, against the stand-in model: after
 * `dsh setup codex` it calls dsh's tools — the destructive ones too, which `codex exec` refused
 * before (approval policy never) —, its own shell and web search are gone from the model's list,
 * dsh's results reach the model's next request, a write under read-only is refused with the
 * remedy, a user's Claude Code deny rule holds in dsh under Codex as well.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { usePrivateTmpdir } from '../../private-tmpdir.ts'
import type { Installed } from './install.ts'
import { clientSpec, codexProvider, model, offered, runClient, Sandbox, toolResults, type Model } from './harness.ts'

usePrivateTmpdir('dsh-codex-')

const { installed, skip } = clientSpec('codex', 'Codex')

let box: Sandbox | undefined
let m: Model | undefined

describe.skipIf(skip)('Codex with dsh (headless)', { timeout: 120_000 }, () => {
  it('setup, then bash and write: dsh runs them (Codex approves nothing itself), results reach the model, its shell and web search are gone', async () => {
    box = new Sandbox(installed as Installed)
    m = await model([{ call: 'bash', input: { command: 'echo hi-from-dsh; pwd' } }, { call: 'write', input: { file_path: 'made.txt', content: 'x' } }, { call: 'bash', input: { command: 'echo y > made-by-bash.txt' } }, { text: 'finished' }])
    codexProvider(box, m)
    expect((await box.dsh(['setup', 'codex'])).code).toBe(0)
    const run = await runClient(box, 'codex', m, 'say hi')
    expect(run.code, run.stderr).toBe(0)
    const [bash, write, refusedBash] = toolResults(m)
    expect(bash).toContain('hi-from-dsh')
    expect(bash).toContain(box.project)
    // refused by dsh (read-only, with the remedy), not by Codex ("requires approval")
    expect(write).toMatch(/needs the sandbox mode workspace-write/)
    expect(write).not.toMatch(/requires approval/)
    expect(existsSync(join(box.project, 'made.txt'))).toBe(false)
    // Codex hands the model the structured value, not the text: the sandbox's remedy is in it too
    expect(refusedBash).toMatch(/Read-only file system/)
    expect(refusedBash).toMatch(/To allow them: run the session in workspace-write/)
    expect(existsSync(join(box.project, 'made-by-bash.txt'))).toBe(false)
    const tools = offered(m)
    expect(tools).toContain('mcp__dsh__bash')
    for (const builtin of ['exec_command', 'write_stdin', 'shell', 'apply_patch', 'web_search']) expect(tools).not.toContain(builtin)
    // the first turn already has dsh's tools (required = true: Codex waits for the server)
    expect(offered(m).filter((t) => t.startsWith('mcp__dsh__')).sort()).toEqual(['bash', 'edit', 'glob', 'grep', 'ls', 'read', 'web_fetch', 'write'].map((t) => `mcp__dsh__${t}`))
  })

  it('without default_tools_approval_mode, codex exec refuses dsh\'s destructive tools before dsh sees them (what setup fixes)', async () => {
    box = new Sandbox(installed as Installed)
    m = await model([{ call: 'bash', input: { command: 'echo hi' } }, { text: 'finished' }])
    codexProvider(box, m, `\n[mcp_servers.dsh]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(import.meta.dirname, '../../../core/dsh/bin/dsh.cjs'))}, "mcp"]\nrequired = true\n`)
    const run = await runClient(box, 'codex', m, 'say hi')
    expect(run.code, run.stderr).toBe(0)
    expect(toolResults(m).join('\n')).toMatch(/requires approval/)
  })

  it('a user\'s Claude Code deny rule Bash(curl:*) holds in dsh under Codex', async () => {
    box = new Sandbox(installed as Installed)
    box.write('.claude/settings.json', JSON.stringify({ permissions: { deny: ['Bash(curl:*)'] } }), box.home)
    m = await model([{ call: 'bash', input: { command: 'curl -s http://127.0.0.1:9/' } }, { text: 'finished' }])
    codexProvider(box, m)
    await box.dsh(['setup', 'codex'])
    const run = await runClient(box, 'codex', m, 'fetch')
    expect(run.code, run.stderr).toBe(0)
    expect(toolResults(m)[0]).toContain('Bash(curl:*)')
  })
})
