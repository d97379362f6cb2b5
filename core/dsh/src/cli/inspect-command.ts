/**
 * `dsh inspect`: the tool-cordis snapshot of a kernel built from a config, as
 * a tree (coloured on a terminal) or one JSON document; with `--call`, a past
 * call explained from its session log (explain-call.ts).
 */
import type { Context } from 'cordis'
import type { PermissionView } from '@dsh/claude-code-permissions'
import { describeError } from '@dsh/kernel'
import { SESSION_ID } from '../sessions/store.js'
import { bundledModule, findConfig, withKernel } from './command-kernel.js'
import { defineCommand, UsageError } from './flags.js'
import type { Command } from './command.js'
import { explainCall, formatExplanation } from './explain-call.js'
import { storeFor } from './sessions-command.js'

/** What this command uses of @dsh/tool-cordis (loaded the way bundled plugins are). */
interface ToolCordis {
  snapshot(ctx: Context): object
  formatTree(snapshot: object, options?: { colour?: boolean }): string
}

const HELP = `Usage: dsh inspect [--config dsh.yml] [--json] [--no-probe]
       dsh inspect --call <callId> [--session <id>] [--json]

Builds the kernel from a config and prints its registry: the tools (owning plugin,
what the model is sent under each mode, concurrency, timeout), the listeners of
every event in call order, the guards, the prompt sections, the sandbox backends
with their probe results and the chosen one, the approval policy, and the loaded
plugins with their status and config, and — when claude-code-permissions is
loaded — the effective permission rules with the file each came from. Each plugin
is shown with what it owns (tools, guards, listeners, prompt sections) and the
plugins it plugged under it. Nothing is called and no session is opened.

With --call, explains a past call from the session log instead: each step it
passed (prepare, pre-execute, guards, approval, mode check, body, post-execute),
the one that decided how it ended — the plugin and its rule, hook or guard — and
what the log holds about each (permission decisions, hook runs, the approval).
Without --session every session under the data directory is searched.

Options:
  -c, --config <file>  the dsh.yml to build from (default: ./dsh.yml if present,
                       else the built-in default set; see dsh init)
      --json           print one JSON document instead of the tree
      --no-probe       do not probe the sandbox backends (they show as not probed)
      --call <callId>  explain this past call from its session log
      --session <id>   the session to read it from (default: search them all)
      --data-dir <dir> the data directory holding sessions/ (default: the
                       config's dataDir, else .dsh)
  -h, --help           show this help

Exit codes: 0 printed; 1 a session log could not be read; 2 bad usage, a config
that does not load, or (--call) no such call.
`

const FLAGS = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
  'no-probe': { type: 'boolean' },
  call: { type: 'string' },
  session: { type: 'string' },
  'data-dir': { type: 'string' },
} as const

/** `--call`: find the call in the session named, or in every session (newest first), and explain it. */
function explain(values: { call: string; session?: string; json?: boolean; config?: string; 'data-dir'?: string }): number {
  const store = storeFor(values)
  if (values.session !== undefined && !SESSION_ID.test(values.session)) throw new UsageError(`--session: ${JSON.stringify(values.session)} is not a session id (letters, digits, ".", "_" and "-")`)
  let logs
  let problems: string[] = []
  try {
    if (values.session !== undefined) {
      const log = store.read(values.session)
      if (!log) throw new UsageError(`--session: no session ${JSON.stringify(values.session)} in ${store.dir}`)
      logs = [log]
    } else {
      ;({ logs, problems } = store.readAll())
      logs.sort((a, b) => b.modified - a.modified)
    }
  } catch (error) {
    if (error instanceof UsageError) throw error
    process.stderr.write(`dsh inspect: cannot read the session logs in ${store.dir}: ${describeError(error)}\n`)
    return 1
  }
  for (const log of logs) {
    const found = explainCall(log.events, values.call)
    if (!found) continue
    const session = { id: log.id, path: log.path }
    process.stdout.write(`${values.json ? JSON.stringify({ ...found, session }, null, 2) : formatExplanation(found, session)}\n`)
    return 0
  }
  for (const problem of problems) process.stderr.write(`dsh inspect: cannot read ${problem}\n`)
  const where = values.session !== undefined ? `session ${values.session}` : `any session in ${store.dir}`
  throw new UsageError(`--call: no call ${JSON.stringify(values.call)} in ${where}`)
}

function formatPermissions(view: PermissionView): string {
  const lines = [`permissions (claude-code-permissions): mode ${view.mode}${view.preset ? `, preset ${view.preset}` : ''}`]
  lines.push(`  files: ${view.files.length ? view.files.join(', ') : '(none)'}`)
  if (!view.rules.length) lines.push('  rules: (none)')
  for (const rule of view.rules) lines.push(`  ${rule.list.padEnd(5)} ${rule.rule}  — ${rule.source}`)
  return lines.join('\n')
}

export const inspectCommand: Command = defineCommand({
  name: 'inspect',
  summary: 'print the registry: tools, listeners, guards, prompt, sandbox, approval, plugins',
  help: HELP,
  flags: FLAGS,
  positionals: false,
  async run(values) {
    if (values.call !== undefined) return explain({ ...values, call: values.call })
    if (values.session !== undefined || values['data-dir'] !== undefined) throw new UsageError('--session and --data-dir go with --call <callId>')
    return withKernel('inspect', findConfig(values.config), async (kernel) => {
      // probing runs each backend's read-only profile once; the snapshot itself never probes
      if (!values['no-probe']) await kernel.ctx.sandbox.probe()
      const cordis = await bundledModule<ToolCordis>('tool-cordis')
      const snap = cordis.snapshot(kernel.ctx)
      // the effective permission rules, each with the file it came from (when claude-code-permissions is loaded)
      const permissions = kernel.ctx.bail('permissions/rules')
      const text = values.json
        ? JSON.stringify(permissions ? { ...snap, permissions } : snap, null, 2)
        : cordis.formatTree(snap, { colour: process.stdout.isTTY === true }) + (permissions ? `\n${formatPermissions(permissions)}` : '')
      process.stdout.write(text + '\n')
      return 0
    })
  },
})
