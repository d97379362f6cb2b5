/**
 * `dsh inspect`: the tool-cordis snapshot of a kernel built from a config, as
 * a tree (coloured on a terminal) or one JSON document.
 */
import type { Context } from 'cordis'
import type { PermissionView } from '@dsh/claude-code-permissions'
import { bundledModule, commandKernel, findConfig, parseFlags, usageFailure } from './command-kernel.js'
import type { Command } from './commands.js'

/** What this command uses of @dsh/tool-cordis (loaded the way bundled plugins are). */
interface ToolCordis {
  snapshot(ctx: Context): object
  formatTree(snapshot: object, options?: { colour?: boolean }): string
}

const HELP = `Usage: dsh inspect [--config dsh.yml] [--json] [--no-probe]

Builds the kernel from a config and prints its registry: the tools (owning plugin,
what the model is sent under each mode, concurrency, timeout), the listeners of
every event in call order, the guards, the prompt sections, the sandbox backends
with their probe results and the chosen one, the approval policy, and the loaded
plugins with their status and config, and — when claude-code-permissions is
loaded — the effective permission rules with the file each came from. Nothing is
called and no session is opened.

Options:
  -c, --config <file>  the dsh.yml to build from (default: ./dsh.yml if present,
                       else the built-in default set; see dsh init)
      --json           print one JSON document instead of the tree
      --no-probe       do not probe the sandbox backends (they show as not probed)
  -h, --help           show this help

Exit codes: 0 printed; 2 bad usage, or a config that does not load.
`

const FLAGS = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
  'no-probe': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function formatPermissions(view: PermissionView): string {
  const lines = [`permissions (claude-code-permissions): mode ${view.mode}${view.preset ? `, preset ${view.preset}` : ''}`]
  lines.push(`  files: ${view.files.length ? view.files.join(', ') : '(none)'}`)
  if (!view.rules.length) lines.push('  rules: (none)')
  for (const rule of view.rules) lines.push(`  ${rule.list.padEnd(5)} ${rule.rule}  — ${rule.source}`)
  return lines.join('\n')
}

export const inspectCommand: Command = {
  summary: 'print the registry: tools, listeners, guards, prompt, sandbox, approval, plugins',
  async run(args) {
    let kernel
    try {
      const { values } = parseFlags('inspect', args, FLAGS, false)
      if (values.help) {
        process.stdout.write(HELP)
        return 0
      }
      kernel = await commandKernel('inspect', findConfig(values.config))
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
    } catch (error) {
      return usageFailure('inspect', error)
    } finally {
      await kernel?.dispose()
    }
  },
}
