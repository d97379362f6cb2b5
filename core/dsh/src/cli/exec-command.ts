/**
 * `dsh exec <tool> '<json>'`: one call through the full pipeline, in a turn of
 * a session, then the result and the audit trail. Approval: on a terminal the
 * ui-approval prompt answers (loaded if the config does not load it); without
 * one nobody can answer, so a call that needs approval is denied, and the
 * output says so.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { listenerList } from '@dsh/kernel'
import { raw } from '@dsh/kernel/internals'
import type { ToolsMode } from '@dsh/tools'
import type { Kernel } from '../kernel/kernel.js'
import { checkPluginConfig } from '../plugins/import-plugin.js'
import { bundledModule, commandKernel, findConfig } from './command-kernel.js'
import { defineCommand, UsageError, type FlagValues } from './flags.js'
import type { Command } from './command.js'
import { lockSession, type SessionLock } from '../sessions/lock.js'
import { formatReport, type ExecReport } from './exec-output.js'
import { parseJsonArgument } from './json-argument.js'
import { painter } from './timeline.js'

const HELP = `Usage: dsh exec <tool> ['<json arguments>'] [options]

Runs one call of <tool> through the full pipeline (validation, listeners,
approval, guards, the body, post-processing), in a turn of a session, and
prints the result and the audit trail: the session events the call appended.
The arguments are one JSON object (default {}).

Approval: on a terminal, the ui-approval prompt answers (it is loaded if the
config does not load it). Without a terminal nobody can answer, so a call that
needs approval ends denied, and the output says so.

Options:
  -c, --config <file>   the dsh.yml to build from (default: ./dsh.yml if present,
                        else the built-in default set; see dsh init)
  -s, --session <id>    append to this session (default: a new one) under the
                        config's data directory
  -m, --mode <mode>     tools mode: native, code or both (default: the config's)
      --json            print { result, session, events } as one JSON document
  -h, --help            show this help

Exit codes: 0 the call succeeded; 1 it ended in an error result (denied,
invalid arguments, unknown tool, failed, ...); 2 bad usage: an unknown flag,
arguments that are not JSON, a config that does not load.
`

const FLAGS = {
  config: { type: 'string', short: 'c' },
  session: { type: 'string', short: 's' },
  mode: { type: 'string', short: 'm' },
  json: { type: 'boolean' },
} as const

const MODES: readonly string[] = ['native', 'code', 'both']

interface Request {
  tool: string
  args: unknown
  mode?: ToolsMode
  configFile?: string
  sessionId?: string
  json: boolean
}

function parseRequest(values: FlagValues<typeof FLAGS>, positionals: string[]): Request {
  if (positionals.length === 0) throw new UsageError('missing the tool name\nUsage: dsh exec <tool> [\'<json arguments>\'] [options]')
  if (positionals.length > 2) {
    throw new UsageError(`expected a tool name and at most one JSON argument, got ${positionals.length} arguments (quote the JSON: '{"a": 1}')`)
  }
  const [tool, text] = positionals
  let args: unknown = {}
  if (text !== undefined) {
    const parsed = parseJsonArgument(text)
    if (!parsed.ok) throw new UsageError(parsed.message)
    args = parsed.value
  }
  if (values.mode !== undefined && !MODES.includes(values.mode)) {
    throw new UsageError(`--mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(values.mode)}`)
  }
  return {
    tool,
    args,
    mode: values.mode as ToolsMode | undefined,
    configFile: findConfig(values.config),
    sessionId: values.session,
    json: values.json === true,
  }
}

/** Who can answer an approval request; on a terminal, load ui-approval unless the config did. */
async function approver(kernel: Kernel): Promise<ExecReport['approver']> {
  const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true
  const loaded = kernel.plugins().some((p) => p.plugin?.name === 'ui-approval')
  if (terminal && !loaded) {
    const ui = await bundledModule('ui-approval')
    kernel.ctx.plugin(ui as any, checkPluginConfig('ui-approval', ui, {}))
    await kernel.ctx.lifecycle.flush()
  }
  const listening = listenerList(kernel.ctx, 'approval/request').hooks().length > 0
  if (!listening) return 'none'
  return terminal ? 'terminal' : 'listener'
}

async function run(request: Request): Promise<number> {
  const kernel = await commandKernel('exec', request.configFile, request.mode ? { tools: { mode: request.mode } } : {})
  const abort = new AbortController()
  // Ctrl+C cancels the call (the body sees the abort); a second one is Node's default
  const onSigint = () => abort.abort(new Error('interrupted'))
  process.once('SIGINT', onSigint)
  let lock: SessionLock | undefined
  try {
    const who = await approver(kernel)
    let session
    try {
      const id = request.sessionId ?? randomUUID()
      const dir = raw(kernel.ctx.sessions).dir
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      // a session a running dsh mcp holds is not appended to from here
      lock = lockSession(id, join(dir, `${id}.jsonl`))
      session = kernel.openSession({ id })
    } catch (error) {
      throw new UsageError(`--session: ${(error as Error).message}`)
    }
    // the newest event before the call (by seq: the in-memory list is a window whose positions move)
    const from = session.events().at(-1)?.seq ?? 0
    session.beginTurn()
    const result = await kernel.execute({
      callId: `exec-${randomUUID().slice(0, 8)}`,
      name: request.tool,
      arguments: request.args,
      session,
      signal: abort.signal,
    })
    session.endTurn()
    // SessionEnd hooks and the like append before the log closes
    await kernel.ctx.sessions.end(session, { reason: 'other' })
    const report: ExecReport = { result, events: session.events().filter((event) => event.seq > from), session: { id: session.id, path: session.path }, approver: who }
    const text = request.json
      ? JSON.stringify({ result, session: report.session, approver: who, events: report.events }, null, 2)
      : formatReport(report, painter(process.stdout.isTTY === true))
    process.stdout.write(text + '\n')
    return result.isError ? 1 : 0
  } finally {
    process.removeListener('SIGINT', onSigint)
    await kernel.dispose()
    lock?.release()
  }
}

export const execCommand: Command = defineCommand({
  name: 'exec',
  summary: 'run one tool call through the full pipeline and print the result and its audit trail',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  run: (values, positionals) => run(parseRequest(values, positionals)),
})
