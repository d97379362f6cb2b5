/**
 * The table of `dsh` commands. Each command parses its own flags (with
 * `node:util` parseArgs, strict) and returns the exit code.
 */
import { demoCommand } from './demo-command.js'
import { execCommand } from './exec-command.js'
import { inspectCommand } from './inspect-command.js'
import { mcpCommand } from './mcp-command.js'

export interface Command {
  /** one line for the command list */
  summary: string
  run(args: string[]): Promise<number>
}

export const commands: Record<string, Command> = {
  demo: demoCommand,
  exec: execCommand,
  inspect: inspectCommand,
  mcp: mcpCommand,
}

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length))
  const list = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`).join('\n')
  return `Usage: dsh <command> [options]

Commands:
${list}

Run \`dsh <command> --help\` for a command's options.

Exit codes: 0 success; 1 a tool call ended in an error result; 2 bad usage or configuration.`
}
