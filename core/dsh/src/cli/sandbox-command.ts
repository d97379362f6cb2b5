/**
 * `dsh sandbox unrestored|clear <path>...`: the protected entries the
 * sandbox could not put back after a confined call (Landlock alone: a
 * write-back that failed, or a call whose dsh process died and whose entry
 * could not be put back for it). Readers such as hooks-claude-code refuse a
 * marked entry, since it may hold what a command wrote; the user looks at
 * it, then clears the mark. See docs/errors.md (SANDBOX_UNAVAILABLE).
 */
import { describeError } from '@dsh/kernel'
import { clearUnrestored, listUnrestored, markedPathOf } from '@dsh/sandbox'
import type { Command } from './command.js'
import { defineCommand, UsageError } from './flags.js'

const HELP = `Usage: dsh sandbox unrestored [--json]
       dsh sandbox clear <path>...

The protected entries (.claude, .codex, .mcp.json, .git/hooks and config, the
shell and editor start-up files) that the sandbox could not put back after a
confined call. Each may hold what the command wrote, so dsh refuses to load it
(hooks-claude-code reads no settings from it) until you clear its mark.

  unrestored  list the marked entries, with why each was not put back
  clear       remove the marks on these entries, once you have looked at each
              (and put back or removed what you do not want there)

Options:
      --json             machine-readable output (unrestored)
  -h, --help             show this help

Exit codes: 0 done; 1 the ledger could not be read or a mark removed; 2 bad
usage, or a path that has no mark.
`

const FLAGS = {
  json: { type: 'boolean' },
} as const

const write = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)

function unrestored(json: boolean): number {
  const marks = listUnrestored()
  if (json) write(JSON.stringify(marks, null, 2))
  else if (!marks.length) write('no protected entry is marked as not put back')
  else write(marks.map((m) => `${m.path}${m.at ? `  (marked ${m.at})` : ''}\n  ${m.reason}`).join('\n'))
  return 0
}

function clear(paths: string[]): number {
  if (!paths.length) throw new UsageError('clear needs the path of each entry to clear (dsh sandbox unrestored lists them)')
  const missing = paths.filter((path) => !clearUnrestored(path))
  for (const path of paths) if (!missing.includes(path)) write(`cleared ${markedPathOf(path)}`)
  if (missing.length) throw new UsageError(`no mark on ${missing.map((p) => markedPathOf(p)).join(', ')} (dsh sandbox unrestored lists the marked entries)`)
  return 0
}

export const sandboxCommand: Command = defineCommand({
  name: 'sandbox',
  summary: 'list or clear the protected entries the sandbox could not put back (unrestored, clear <path>)',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  run(values, positionals) {
    const [action, ...rest] = positionals
    try {
      switch (action) {
        case 'unrestored':
          if (rest.length) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`)
          return unrestored(values.json === true)
        case 'clear':
          if (values.json !== undefined) throw new UsageError('--json is for unrestored')
          return clear(rest)
        case undefined:
          throw new UsageError('name an action: unrestored or clear <path>...')
        default:
          throw new UsageError(`unknown action ${JSON.stringify(action)}: unrestored or clear <path>...`)
      }
    } catch (error) {
      if (error instanceof UsageError) throw error
      process.stderr.write(`dsh sandbox: ${describeError(error)}\n`)
      return 1
    }
  },
})
