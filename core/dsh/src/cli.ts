#!/usr/bin/env node
/**
 * The `dsh` command line.
 */
import { parseArgs } from 'node:util'
import { runDemo } from './cli/demo.js'

const usage = `Usage: dsh <command> [options]

Commands:
  demo              run a scripted session through the pipeline and print its audit timeline

Options:
  -h, --help        show this help

Exit codes: 0 success, 1 a tool call ended in an error result, 2 bad usage or configuration.`

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(usage + '\n')
    return command ? 0 : 2
  }
  switch (command) {
    case 'demo': {
      const { values } = parseArgs({ args: rest, options: { help: { type: 'boolean', short: 'h' } }, strict: true })
      if (values.help) {
        process.stdout.write('Usage: dsh demo\n\nRuns a scripted session on embedded defaults in a temporary workspace.\n')
        return 0
      }
      return runDemo()
    }
    default:
      process.stderr.write(`dsh: unknown command ${JSON.stringify(command)}\n\n${usage}\n`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code },
  (error) => {
    process.stderr.write(`dsh: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  },
)
