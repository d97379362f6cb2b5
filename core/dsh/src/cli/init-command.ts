/**
 * `dsh init [<file>] [--force]`: write the built-in default set as a
 * commented dsh.yml (init-file.ts), never over an existing file unless
 * `--force`.
 */
import { writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pluginSections, serviceSections } from '../config/reference.js'
import { renderInitFile } from '../config/init-file.js'
import { defineCommand, UsageError } from './flags.js'
import type { Command } from './command.js'
import { dshVersion } from './version.js'

const HELP = `Usage: dsh init [<file>] [--force]

Writes <file> (default ./dsh.yml): the built-in default set that dsh mcp, exec
and inspect use when there is no dsh.yml (workspace-tools on the current
directory, timeout-policy, spill-policy, repeat-tool-reminder, hooks-claude-code,
claude-code-permissions with preset on-request; sandbox read-only, approval ask), with every key of every service and bundled
plugin commented out at its default, with its meaning, type and default.
Loading the file gives the same kernel as the built-in set.

Options:
  -f, --force   overwrite the file if it exists
  -h, --help    show this help

Exit codes: 0 written; 2 bad usage, or the file exists (without --force) or
cannot be written.
`

const FLAGS = {
  force: { type: 'boolean', short: 'f' },
} as const

const here = dirname(fileURLToPath(import.meta.url))

/** The text `dsh init` writes (exported for the test that loads it). */
export async function initFileText(): Promise<string> {
  return renderInitFile(serviceSections(), await pluginSections(here), dshVersion())
}

export const initCommand: Command = defineCommand({
  name: 'init',
  summary: 'write ./dsh.yml: the built-in default set, every key commented (--force overwrites)',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  async run(values, positionals) {
    if (positionals.length > 1) throw new UsageError(`expected at most one file, got ${positionals.length} arguments`)
    const file = resolve(positionals[0] ?? 'dsh.yml')
    const text = await initFileText()
    try {
      // wx: never replace a file that appeared meanwhile unless asked to
      writeFileSync(file, text, { flag: values.force ? 'w' : 'wx' })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') throw new UsageError(`${file} exists; --force overwrites it`)
      throw new UsageError(`cannot write ${file}: ${(error as Error).message}`)
    }
    process.stdout.write(`wrote ${file}: the built-in default set, every key commented; edit it, then \`dsh inspect\` shows the kernel it builds\n`)
    return 0
  },
})
