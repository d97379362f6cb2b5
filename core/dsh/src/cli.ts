#!/usr/bin/env node
/**
 * The `dsh` command line: one module per command under `cli/`.
 */
import { commands, usage } from './cli/commands.js'

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(usage() + '\n')
    return name ? 0 : 2
  }
  if (name === '--version' || name === '-V') {
    const { dshVersion } = await import('./cli/version.js')
    process.stdout.write(`dsh ${dshVersion()}\n`)
    return 0
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!command) {
    process.stderr.write(`dsh: unknown command ${JSON.stringify(name)}\n\n${usage()}\n`)
    return 2
  }
  return command.run(rest)
}

// a reader that went away (`dsh demo | head`) is not an error
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code },
  (error) => {
    process.stderr.write(`dsh: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  },
)
