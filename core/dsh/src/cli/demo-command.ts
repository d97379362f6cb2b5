/**
 * `dsh demo`.
 */
import type { Command } from './command.js'
import { runDemo } from './demo.js'
import { defineCommand } from './flags.js'

export const demoCommand: Command = defineCommand({
  name: 'demo',
  summary: 'run a scripted session through the pipeline and print its audit timeline',
  help: 'Usage: dsh demo\n\nRuns a scripted session on embedded defaults in a temporary workspace\nand prints it as a timeline (coloured on a terminal).\n',
  flags: {},
  positionals: false,
  // a flag mistake is parseArgs' own message, printed by the dsh entry point (dsh: …, exit 2)
  mistake: (error) => {
    throw error
  },
  run: () => runDemo(),
})
