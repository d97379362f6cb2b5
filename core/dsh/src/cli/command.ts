/** A `dsh` command (built by defineCommand in flags.ts, which parses its flags strictly and answers --help): it returns the exit code. */
export interface Command {
  /** one line for the command list */
  summary: string
  run(args: string[]): Promise<number>
}
