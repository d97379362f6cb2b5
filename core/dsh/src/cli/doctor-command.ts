/**
 * `dsh doctor [claude-code|codex]`: read the client's effective configuration for this
 * directory and print each problem that keeps dsh from being its tool layer, with its fix.
 */
import { claudeCodeProblems } from '../clients/claude-code-doctor.js'
import { codexProblems } from '../clients/codex-doctor.js'
import { adoptHints } from '../clients/adopt-hints.js'
import { onPath, render, type Problem } from '../clients/problems.js'
import { defineCommand, UsageError } from './flags.js'
import type { Command } from './command.js'

const HELP = `Usage: dsh doctor [claude-code|codex]

Reads the client's configuration as it applies in this directory and prints
each problem with its fix: dsh not configured, the client's own shell, file or
web tools still on, a rule that denies dsh's tools, dsh's tools not allowed
where the client would refuse them headless, a hook that would run twice.
A hint (which does not change the exit code) names the MCP servers the client
still starts itself, which dsh setup --adopt-mcp-servers would move behind dsh.
Claude Code: managed (and its drop-ins), user, project and local settings,
~/.claude.json and .mcp.json. Codex: ~/.codex/config.toml ($CODEX_HOME) and
its profiles. Without a client, checks each one that is installed.

Options:
  -h, --help    show this help

Exit codes: 0 no problem; 1 a problem (each printed with its fix); 2 the
client is not installed (not on PATH), or bad usage.
`

const CLIENTS: Record<string, { title: string; program: string; problems: () => Problem[]; hints: () => Promise<string[]> }> = {
  'claude-code': { title: 'Claude Code', program: 'claude', problems: () => claudeCodeProblems(), hints: () => adoptHints('claude-code') },
  codex: { title: 'Codex', program: 'codex', problems: () => codexProblems(), hints: () => adoptHints('codex') },
}

export const doctorCommand: Command = defineCommand({
  name: 'doctor',
  summary: 'check Claude Code\'s or Codex\'s configuration for dsh: each problem with its fix (exit 1), a missing client (exit 2)',
  help: HELP,
  flags: {},
  positionals: true,
  async run(_values, positionals) {
    if (positionals.length > 1) throw new UsageError(`expected at most one client, got ${positionals.length} arguments`)
    const asked = positionals[0]
    if (asked !== undefined && !(asked in CLIENTS)) throw new UsageError(`unknown client ${JSON.stringify(asked)}: expected claude-code or codex`)
    const names = asked !== undefined ? [asked] : Object.keys(CLIENTS)
    let found = 0
    let problems = 0
    for (const name of names) {
      const client = CLIENTS[name]!
      const program = onPath(client.program)
      if (!program) {
        const line = `${client.title}: not installed (no ${client.program} on PATH)`
        if (asked !== undefined) {
          process.stderr.write(`dsh doctor: ${line}\n`)
          return 2
        }
        process.stdout.write(`${line}\n`)
        continue
      }
      found++
      const list = client.problems()
      problems += list.length
      process.stdout.write(render(`${client.title} (${program})`, list))
      for (const hint of await client.hints()) process.stdout.write(`  hint: ${hint}\n`)
    }
    if (found === 0) {
      process.stderr.write('dsh doctor: neither Claude Code (claude) nor Codex (codex) is on PATH\n')
      return 2
    }
    return problems > 0 ? 1 : 0
  },
})
