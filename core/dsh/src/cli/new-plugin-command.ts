/**
 * `dsh new-plugin <dir> [--name <package-name>]`: scaffold a plugin package
 * (scaffold/) that builds, passes its own test and loads from its dsh.yml.
 */
import { describeError } from '@dsh/kernel'
import { writeScaffold, scaffoldVersions } from '../scaffold/write.js'
import { defineCommand, UsageError } from './flags.js'
import type { Command } from './command.js'

const HELP = `Usage: dsh new-plugin <dir> [--name <package-name>]

Writes a dsh plugin package into <dir> (which must be new or empty): src/index.ts
(name, inject, a schemastery Config, apply registering one tool), a test on
dsh/testing run with node --test, a dsh.yml loading the build, a README, a
package.json and a tsconfig.json. dsh and cordis are peer dependencies at this
dsh's version, and dev dependencies on this very dsh by file: path (dsh's
packages are not on the npm registry). Then: cd <dir> && npm install && npm test.

Options:
  -n, --name <package-name>   the npm package name (default: <dir>'s name)
  -h, --help                  show this help

Exit codes: 0 written; 2 bad usage, a bad name, or <dir> not empty.
`

const FLAGS = {
  name: { type: 'string', short: 'n' },
} as const

export const newPluginCommand: Command = defineCommand({
  name: 'new-plugin',
  summary: 'scaffold a plugin package in <dir>: plugin, test on dsh/testing, dsh.yml, README',
  help: HELP,
  flags: FLAGS,
  positionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1) throw new UsageError(`expected one directory, got ${positionals.length} arguments\nRun \`dsh new-plugin --help\` for the options.`)
    let written: ReturnType<typeof writeScaffold>
    try {
      written = writeScaffold(positionals[0], scaffoldVersions(new URL('../../package.json', import.meta.url)), values.name)
    } catch (error) {
      throw new UsageError(describeError(error))
    }
    const { dir, names, files } = written
    process.stdout.write(`wrote ${names.packageName} (plugin ${names.pluginName}, tool ${names.toolName}) in ${dir}: ${files.join(', ')}\nnext: cd ${dir} && npm install && npm test\n`)
    return 0
  },
})
