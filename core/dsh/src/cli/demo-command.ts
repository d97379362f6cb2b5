/**
 * `dsh demo`.
 */
import { parseArgs } from 'node:util'
import type { Command } from './command.js'
import { runDemo } from './demo.js'

export const demoCommand: Command = {
  summary: 'run a scripted session through the pipeline and print its audit timeline',
  async run(args) {
    const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true })
    if (values.help) {
      process.stdout.write('Usage: dsh demo\n\nRuns a scripted session on embedded defaults in a temporary workspace\nand prints it as a timeline (coloured on a terminal).\n')
      return 0
    }
    return runDemo()
  },
}
