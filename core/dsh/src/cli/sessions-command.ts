/**
 * `dsh sessions list|show <id>|prune --older-than <duration>`: the session
 * logs under the data directory (`dataDir` of the config, default `.dsh`),
 * read without changing them; prune removes whole logs (and their spill
 * directories and lock files) last written before the cut-off, each under its
 * session lock: a log a live process holds is skipped and named.
 */
import { resolve } from 'node:path'
import { describeError } from '@dsh/kernel'
import { readConfigFile } from '../config/file.js'
import { parseDuration } from '../sessions/duration.js'
import { lockSession, SessionLockedError } from '../sessions/lock.js'
import { SESSION_ID, SessionStore, summarize, type SessionSummary } from '../sessions/store.js'
import { formatFullTimeline, inert } from '../sessions/timeline.js'
import { findConfig } from './command-kernel.js'
import { defineCommand, UsageError } from './flags.js'
import type { Command } from './command.js'
import { painter } from './timeline.js'

const HELP = `Usage: dsh sessions list [--json]
       dsh sessions show <id> [--json]
       dsh sessions prune --older-than <duration>

The session logs under the data directory (<dataDir>/sessions, dataDir from the
config, default .dsh). Reading never changes a log: a torn last line (a write a
crash interrupted) is reported, not cut off.

  list   one line per session, most recent first: id, started, calls, errors,
         last event (--json: one JSON array)
  show   the whole timeline of one session: every event whole, each tool call
         with its decision and reason on its line (--json: the events)
  prune  remove the sessions last written longer ago than <duration>
         (a whole number and s, m, h, d or w: 12h, 7d), with their spill and
         lock files; a session another live process holds is skipped and named

Options:
  -c, --config <file>    the dsh.yml whose dataDir to use (default ./dsh.yml if present)
      --data-dir <dir>   the data directory itself (overrides the config)
      --json             machine-readable output (list, show)
      --older-than <d>   prune: the age cut-off
  -h, --help             show this help

Exit codes: 0 done; 1 a log could not be read; 2 bad usage, an unknown session.
`

const FLAGS = {
  config: { type: 'string', short: 'c' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  'older-than': { type: 'string' },
} as const

export function storeFor(values: { config?: string; 'data-dir'?: string }): SessionStore {
  if (values['data-dir'] !== undefined) return new SessionStore(resolve(values['data-dir'], 'sessions'))
  const config = findConfig(values.config)
  let dataDir: string | undefined
  if (config) {
    try {
      dataDir = readConfigFile(config).options.dataDir
    } catch (error) {
      throw new UsageError(describeError(error))
    }
  }
  return new SessionStore(resolve(dataDir ?? '.dsh', 'sessions'))
}

const write = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)

function listLine(s: SessionSummary): string {
  const last = s.lastEvent ? `${s.lastEvent.type} at ${s.lastEvent.time}` : '(no events)'
  const damage = s.damage ? `  [${s.damage}]` : ''
  return `${s.id}  started ${s.started ?? '-'}  ${s.calls} call${s.calls === 1 ? '' : 's'}  ${s.errors} error${s.errors === 1 ? '' : 's'}  last ${last}${damage}`
}

function list(store: SessionStore, json: boolean): number {
  const { logs, problems } = store.readAll()
  const summaries = logs.sort((a, b) => (b.events.at(-1)?.time ?? b.modified) - (a.events.at(-1)?.time ?? a.modified)).map(summarize)
  for (const problem of problems) process.stderr.write(`dsh sessions: cannot read ${problem}\n`)
  if (json) write(JSON.stringify(summaries, null, 2))
  else if (!summaries.length) write(`no sessions in ${store.dir}`)
  else write(summaries.map(listLine).join('\n'))
  return problems.length ? 1 : 0
}

function show(store: SessionStore, id: string | undefined, json: boolean): number {
  if (id === undefined) throw new UsageError('show needs a session id (dsh sessions list shows them)')
  if (!SESSION_ID.test(id)) throw new UsageError(`<id>: ${JSON.stringify(id)} is not a session id (letters, digits, ".", "_" and "-")`)
  let log
  try {
    log = store.read(id)
  } catch (error) {
    process.stderr.write(`dsh sessions: cannot read ${store.pathOf(id)}: ${describeError(error)}\n`)
    return 1
  }
  if (!log) throw new UsageError(`<id>: no session ${JSON.stringify(id)} in ${store.dir}`)
  if (json) {
    write(JSON.stringify({ ...summarize(log), events: log.events }, null, 2))
    return 0
  }
  const p = painter(process.stdout.isTTY === true)
  const head = [`session ${log.id} (${log.path})`, ...(log.damage ? [`note: ${inert(log.damage)}; the kernel cuts it off when the session is reopened`] : [])]
  write([...head, ...formatFullTimeline(log.events, p)].join('\n'))
  return 0
}

function prune(store: SessionStore, olderThan: string | undefined): number {
  if (olderThan === undefined) throw new UsageError('prune needs --older-than <duration> (e.g. 7d, 12h)')
  const parsed = parseDuration(olderThan)
  if ('problem' in parsed) throw new UsageError(`--older-than: ${parsed.problem}`)
  const cutoff = Date.now() - parsed.ms
  const removed: string[] = []
  const held: string[] = []
  let failed = false
  for (const id of store.ids()) {
    try {
      const log = store.read(id)
      if (!log || log.modified >= cutoff) continue
      // Why under its lock: a process appending to the session (dsh mcp, dsh exec --session) holds it; its log is not ours to remove
      const lock = lockSession(id, log.path)
      try {
        store.remove(id)
      } finally {
        lock.release()
      }
      removed.push(id)
    } catch (error) {
      if (error instanceof SessionLockedError) {
        held.push(id)
        process.stderr.write(`dsh sessions: kept ${id}: ${error.message}\n`)
        continue
      }
      failed = true
      process.stderr.write(`dsh sessions: cannot prune ${id}: ${describeError(error)}\n`)
    }
  }
  write(removed.length ? `removed ${removed.length} session${removed.length === 1 ? '' : 's'}: ${removed.join(', ')}` : held.length ? 'removed no session' : `no session in ${store.dir} is older than ${olderThan}`)
  if (held.length) write(`kept ${held.length} session${held.length === 1 ? '' : 's'} in use: ${held.join(', ')}`)
  return failed ? 1 : 0
}

export const sessionsCommand: Command = defineCommand({
  name: 'sessions',
  summary: 'list, show or prune the session logs (list, show <id>, prune --older-than 7d)',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  async run(values, positionals) {
    const [action, ...rest] = positionals
    const extra = (allowed: number) => {
      if (rest.length > allowed) throw new UsageError(`unexpected argument ${JSON.stringify(rest[allowed])}`)
    }
    const only = (flag: keyof typeof FLAGS, where: string) => {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} is for ${where}`)
    }
    switch (action) {
      case 'list':
        extra(0)
        only('older-than', 'prune')
        return list(storeFor(values), values.json === true)
      case 'show':
        extra(1)
        only('older-than', 'prune')
        return show(storeFor(values), rest[0], values.json === true)
      case 'prune':
        extra(0)
        only('json', 'list and show')
        return prune(storeFor(values), values['older-than'])
      case undefined:
        throw new UsageError('name an action: list, show <id> or prune --older-than <duration>')
      default:
        throw new UsageError(`unknown action ${JSON.stringify(action)}: list, show <id> or prune --older-than <duration>`)
    }
  },
})
