/**
 * `dsh setup claude-code [--scope user|project|local] [--dry-run]` and `dsh setup codex
 * [--dry-run]`: write what makes the client use dsh's tools instead of its own into the
 * client's files, merged, idempotent; `--dry-run` prints the diff and writes nothing.
 */
import { readFileSync } from 'node:fs'
import { changed, ConfigFileError, diffOf, writeAll, type ConfigFile } from '../clients/config-file.js'
import { claudeCodePlan } from '../clients/claude-code-setup.js'
import type { ClaudeScope } from '../clients/claude-code-files.js'
import { codexPlan } from '../clients/codex-setup.js'
import { CLAUDE_KEPT, CODEX_KEPT } from '../clients/recipe.js'
import { adoptPlan } from '../clients/adopt-servers.js'
import { readRecord, recordPath, writeRecord, type AdoptClient } from '../clients/adoption-record.js'
import { claudeFiles } from '../clients/claude-code-files.js'
import { restorePlan } from '../clients/restore-servers.js'
import { rmSync } from 'node:fs'
import { defineCommand, UsageError } from './flags.js'
import { initFileText } from './init-command.js'
import type { Command } from './command.js'

const HELP = `Usage: dsh setup claude-code [--scope user|project|local] [--adopt-mcp-servers | --restore] [--dry-run]
       dsh setup codex [--adopt-mcp-servers | --restore] [--dry-run]

Makes the client use dsh's tools (through \`dsh mcp\`, started with this node and
this dsh by absolute path) instead of its own shell, file and web tools, and lets
dsh's tools through the client's own permission check, so that dsh's approval
and sandbox decide. Merged into the client's files (other content kept), and a
second run changes nothing.

Claude Code, by --scope (default user):
  user     ~/.claude.json (the server) and ~/.claude/settings.json (deny the
           built-in Bash, Monitor, Read, Edit, Write, NotebookEdit, Glob, Grep,
           WebFetch, WebSearch; allow mcp__dsh) — every project, trusted or not
  local    this project's entry in ~/.claude.json and .claude/settings.local.json
  project  .mcp.json and .claude/settings.json (shared; Claude Code applies
           the shared allow rule once the project is trusted), and the allow
           rule in .claude/settings.local.json so that it works here at once
Codex: ~/.codex/config.toml ($CODEX_HOME): [mcp_servers.dsh] with
  default_tools_approval_mode = "approve" and required = true; web_search =
  "disabled", include_apply_patch_tool = false, [features] shell_tool = false,
  unified_exec = false, daemon_auto_start = false (the terminal UI's sessions
  end with it, and dsh mcp with them).

--adopt-mcp-servers moves the client's own MCP servers of that scope (Claude
Code: ~/.claude.json's user servers, this project's in ~/.claude.json for
local, .mcp.json for project; Codex: [mcp_servers]) into this project's
dsh.yml (plugins.mcp-servers.servers; made from dsh init's file when there is
none), so that the client talks only to dsh and dsh runs them confined. A
server that refers to a variable, that dsh cannot serve (SSE) or whose name
dsh.yml already uses stays in the client, said with its reason. What is needed
to put them back is kept in $XDG_STATE_HOME/dsh (~/.local/state/dsh).
--restore puts them back (byte for byte where nothing changed the files since)
and takes them out of dsh.yml; it leaves dsh's own setup in place.

Options:
      --scope <s>   claude-code only: user (default), project or local
      --adopt-mcp-servers  move the client's servers behind dsh (see above)
      --restore     put the adopted servers back into the client
  -n, --dry-run     print the change as a diff; write nothing
  -h, --help        show this help

Exit codes: 0 done (or nothing to do); 2 bad usage, or a file that cannot be
changed (malformed, read-only, a symbolic link: named with its line; nothing
is written then).
`

const FLAGS = {
  scope: { type: 'string' },
  'dry-run': { type: 'boolean', short: 'n' },
  'adopt-mcp-servers': { type: 'boolean' },
  restore: { type: 'boolean' },
} as const

function report(files: readonly ConfigFile[], dryRun: boolean, kept: string, client: string): void {
  const out: string[] = []
  if (dryRun) {
    for (const file of files) if (changed(file)) out.push(diffOf(file).trimEnd())
    out.push(files.some(changed) ? 'dry run: nothing was written' : 'nothing to change: already set up')
  } else {
    for (const file of files) out.push(changed(file) ? `${file.before === undefined ? 'created' : 'updated'} ${file.path}` : `unchanged ${file.path}`)
  }
  out.push(`${client} keeps its own ${kept}: dsh does not replace them, and setup leaves them on.`)
  process.stdout.write(`${out.join('\n')}\n`)
}

function readForEditOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function restore(client: AdoptClient, dryRun: boolean): number {
  const project = claudeFiles().project
  const store = recordPath(project)
  const recordText = readForEditOrUndefined(store)
  const plan = restorePlan(client, readRecord(store, project))
  const out: string[] = []
  if (plan.restored.length === 0) {
    process.stdout.write(`nothing to restore: no MCP servers of ${client} were adopted in ${project}\n`)
    return 0
  }
  if (dryRun) {
    for (const file of plan.files) if (changed(file)) out.push(diffOf(file).trimEnd())
    for (const path of plan.remove) out.push(`would remove ${path} (the adoption made it)`)
    out.push('dry run: nothing was written')
  } else {
    writeAll(plan.files)
    for (const path of plan.remove) rmSync(path, { force: true })
    writeRecord(store, recordText, plan.record)
    for (const file of plan.files) if (changed(file)) out.push(`updated ${file.path}`)
    for (const path of plan.remove) out.push(`removed ${path}`)
  }
  out.push(`${dryRun ? 'would put back' : 'put back'} ${plan.restored.join(', ')}`)
  process.stdout.write(`${out.join('\n')}\n`)
  return 0
}

export const setupCommand: Command = defineCommand({
  name: 'setup',
  summary: 'make Claude Code or Codex use dsh\'s tools instead of their own (claude-code|codex, --dry-run)',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  async run(values, positionals) {
    try {
      if (positionals.length !== 1) throw new UsageError(`expected one client, claude-code or codex${positionals.length > 1 ? `, got ${positionals.length} arguments` : ''}\nRun \`dsh setup --help\` for the options.`)
      const client = positionals[0]!
      let files: ConfigFile[]
      let kept: string
      let name: string
      if (client === 'claude-code') {
        const scope = values.scope ?? 'user'
        if (scope !== 'user' && scope !== 'project' && scope !== 'local') throw new UsageError(`--scope must be user, project or local, not ${JSON.stringify(scope)}`)
        files = claudeCodePlan(scope as ClaudeScope)
        kept = CLAUDE_KEPT
        name = 'Claude Code'
      } else if (client === 'codex') {
        if (values.scope !== undefined) throw new UsageError('--scope is for claude-code: Codex reads a project\'s .codex/config.toml only in a trusted project, so dsh setup codex writes the user\'s config.toml')
        files = codexPlan()
        kept = CODEX_KEPT
        name = 'Codex'
      } else {
        throw new UsageError(`unknown client ${JSON.stringify(client)}: expected claude-code or codex`)
      }
      const dryRun = values['dry-run'] === true
      if (values.restore) {
        if (values['adopt-mcp-servers']) throw new UsageError('--restore and --adopt-mcp-servers undo each other: give one')
        return restore(client as AdoptClient, dryRun)
      }
      const notes: string[] = []
      let save: (() => void) | undefined
      if (values['adopt-mcp-servers']) {
        const project = claudeFiles().project
        const store = recordPath(project)
        const recordText = readForEditOrUndefined(store)
        const record = readRecord(store, project)
        const plan = await adoptPlan(client as AdoptClient, (values.scope ?? 'user') as ClaudeScope, {}, files, initFileText)
        for (const file of plan.files) {
          const at = files.findIndex((f) => f.path === file.path)
          if (at >= 0) files[at] = file
          else files.push(file)
        }
        if (plan.adoption.servers.length > 0) {
          notes.push(`${dryRun ? 'would move' : 'moved'} ${plan.adoption.servers.map((s) => s.name).join(', ')} from ${name}'s config into ${plan.files[1]!.path} (dsh setup ${client} --restore puts ${plan.adoption.servers.length === 1 ? 'it' : 'them'} back)`)
          save = () => writeRecord(store, recordText, { project, adoptions: [...record.adoptions, plan.adoption] })
        } else if (plan.left.length === 0) notes.push(`no MCP server of ${name}'s to move`)
        for (const left of plan.left) notes.push(`left ${left.name} in ${name}'s config: ${left.why}`)
      }
      if (!dryRun) {
        // the record first: a failure after it leaves what --restore needs
        save?.()
        writeAll(files)
      }
      report(files, dryRun, kept, name)
      if (notes.length > 0) process.stdout.write(`${notes.join('\n')}\n`)
      return 0
    } catch (error) {
      if (error instanceof ConfigFileError) {
        process.stderr.write(`dsh setup: ${error.message}\n`)
        return 2
      }
      throw error
    }
  },
})
