/**
 * `dsh permissions check <tool> '<json>'`: what claude-code-permissions decides
 * for a call — the decision, the rule and the file it came from, the mode and
 * the reason — without running anything (no session, no approval, no body).
 * When the config does not load the plugin, it is loaded with its defaults
 * (the settings files of the current directory and the user's home).
 */
import { accessSync, constants, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { PermissionCheck } from '@dsh/claude-code-permissions'
import type { JsonObject } from '@dsh/kernel'
import type { Kernel } from '../kernel/kernel.js'
import { bundledModule, findConfig, withKernel } from './command-kernel.js'
import { defineCommand, UsageError } from './flags.js'
import type { Command } from './command.js'
import { parseJsonArgument } from './json-argument.js'

const HELP = `Usage: dsh permissions check <tool> ['<json arguments>'] [--config dsh.yml] [--json]
       dsh permissions check --exec [--config dsh.yml] [--json] -- <program> [<argument>...]

Prints what the claude-code-permissions plugin decides for one call of <tool>
with these arguments (default {}): allow, ask or deny, the rule that decided and
the file it came from (absent when the mode's default decided), the mode and
the reason. Nothing runs: no session is opened and nobody is asked.

With --exec: what the Bash rules decide for one exec inside a confined call
(the program and its argv as it would get them; the program is found on PATH
for its real path), as the sandbox asks at every execve of the command.

Options:
  -c, --config <file>  the dsh.yml to build from (default: ./dsh.yml if present,
                       else the built-in defaults); without the plugin in it, the
                       plugin is loaded with its defaults
      --json           print the decision as one JSON object
  -h, --help           show this help

Exit codes: 0 printed; 2 bad usage, or a config or settings file that does not load.
`

const FLAGS = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
  exec: { type: 'boolean' },
} as const

type Ask = (kernel: Kernel) => PermissionCheck | Promise<PermissionCheck> | undefined

/** Ask the plugin (loaded with its defaults when the config does not load it). */
async function check(kernel: Kernel, ask: Ask): Promise<PermissionCheck> {
  const asked = ask(kernel)
  if (asked) return asked
  const plugin = await bundledModule('claude-code-permissions')
  const fork = kernel.ctx.plugin(plugin as any, {})
  await kernel.ctx.lifecycle.flush()
  const runtime = (fork as unknown as { runtime: { hasError?: boolean; error?: unknown } }).runtime
  if (runtime.hasError) throw new UsageError(`claude-code-permissions cannot start: ${(runtime.error as Error)?.message ?? String(runtime.error)}`)
  const answer = await ask(kernel)
  if (!answer) throw new UsageError('claude-code-permissions did not answer')
  return answer
}

/** The real path of the program an exec of `name` would run (PATH searched as execvp does), or undefined. */
function programPath(name: string): string | undefined {
  const dirs = name.includes('/') ? [''] : (process.env.PATH ?? '/usr/bin:/bin').split(':')
  for (const dir of dirs) {
    try {
      const real = realpathSync(dir ? join(dir, name) : name)
      accessSync(real, constants.X_OK)
      return real
    } catch {}
  }
  return undefined
}

function format(result: PermissionCheck): string {
  const lines = [
    ...(result.by === 'exec' ? [`exec:     ${JSON.stringify(result.argv)}${result.program && result.program !== result.argv?.[0] ? ` (${result.program})` : ''}`] : []),
    `decision: ${result.decision}`,
    `rule:     ${result.rule ?? (result.by === 'exec' ? '(none: no deny or ask rule meets the exec)' : '(none: the mode decided)')}`,
    `source:   ${result.source ?? '-'}`,
    `mode:     ${result.mode}`,
    `tool:     ${result.name}${result.ruleTool !== result.name ? ` (rules see ${result.ruleTool})` : ''}`,
    `reason:   ${result.reason}`,
  ]
  return lines.join('\n')
}

export const permissionsCommand: Command = defineCommand({
  name: 'permissions',
  summary: 'print what the permission rules decide for a call, without running it',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  async run(values, positionals) {
    const [sub, tool, json, ...extra] = positionals
    let ask: Ask
    if (values.exec && sub === 'check') {
      const argv = positionals.slice(1)
      if (!argv.length) throw new UsageError('missing the program: dsh permissions check --exec <program> [<argument>...]')
      ask = (kernel) => {
        const real = programPath(argv[0])
        return kernel.ctx.bail('permissions/check-exec', { argv, ...(real ? { realPath: real } : {}) })
      }
    } else {
      if (sub !== 'check') throw new UsageError(sub === undefined ? 'missing the subcommand: dsh permissions check <tool> \'<json>\'' : `unknown subcommand ${JSON.stringify(sub)}; the one subcommand is check`)
      if (!tool) throw new UsageError('missing the tool name: dsh permissions check <tool> \'<json>\'')
      if (extra.length) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}; quote the JSON arguments as one word`)
      const parsed = json === undefined ? { ok: true as const, value: {} } : parseJsonArgument(json)
      if (!parsed.ok) throw new UsageError(parsed.message)
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) throw new UsageError('the arguments must be a JSON object')
      ask = (kernel) => kernel.ctx.bail('permissions/check', tool, parsed.value as JsonObject)
    }
    return withKernel('permissions check', findConfig(values.config), async (kernel) => {
      const result = await check(kernel, ask)
      process.stdout.write((values.json ? JSON.stringify(result) : format(result)) + '\n')
      return 0
    })
  },
})
