/**
 * `dsh inspect`: the tool-cordis snapshot of a kernel built from a config, as
 * a tree (coloured on a terminal) or one JSON document.
 */
import type { Context } from 'cordis'
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
plugins with their status and config. Nothing is called and no session is opened.

Options:
  -c, --config <file>  the dsh.yml to build from (default: ./dsh.yml if present,
                       else the built-in defaults)
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
      kernel = await commandKernel(findConfig(values.config))
      // probing runs each backend's read-only profile once; the snapshot itself never probes
      if (!values['no-probe']) await kernel.ctx.sandbox.probe()
      const cordis = await bundledModule<ToolCordis>('tool-cordis')
      const snap = cordis.snapshot(kernel.ctx)
      const text = values.json ? JSON.stringify(snap, null, 2) : cordis.formatTree(snap, { colour: process.stdout.isTTY === true })
      process.stdout.write(text + '\n')
      return 0
    } catch (error) {
      return usageFailure('inspect', error)
    } finally {
      await kernel?.dispose()
    }
  },
}
