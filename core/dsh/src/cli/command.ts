/** A `dsh` command: it parses its own flags (`node:util` parseArgs, strict) and returns the exit code. */
export interface Command {
  /** one line for the command list */
  summary: string
  run(args: string[]): Promise<number>
}
