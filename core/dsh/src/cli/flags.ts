/**
 * What every `dsh` command shares: strict flag parsing whose mistakes are
 * usage errors (exit 2), `-h`/`--help` printing the command's help, and one
 * way of printing a usage error.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { describeError } from '@dsh/kernel'
import type { Command } from './command.js'

/** A mistake on the command line or in the config: the command prints it and exits 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>

export type FlagValues<O extends Options> = { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean }

/** `parseArgs`, strict; an unknown flag or a missing value is a UsageError naming it. */
export function parseFlags<O extends Options>(command: string, args: string[], options: O, allowPositionals: boolean): { values: FlagValues<O>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals })
    return { values: values as FlagValues<O>, positionals }
  } catch (error) {
    const message = describeError(error).replace(/\. To specify a positional argument.*$/s, '')
    throw new UsageError(`${message}\nRun \`dsh ${command} --help\` for the options.`, { cause: error })
  }
}

/** Print a usage error the way every command does, and give its exit code. */
export function usageFailure(command: string, error: unknown): number {
  if (!(error instanceof UsageError)) throw error
  process.stderr.write(`dsh ${command}: ${error.message}\n`)
  return 2
}

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const

export interface CommandSpec<O extends Options> {
  /** the name after `dsh`, in messages */
  name: string
  summary: string
  /** printed on stdout for -h/--help */
  help: string
  /** the command's flags; -h/--help is added */
  flags: O
  positionals: boolean
  /** how a flag mistake is reported, when not as a usage error of this command (exit 2) */
  mistake?: (error: unknown) => number
  /** the command itself, after the flags parsed and no --help; a UsageError it throws exits 2 */
  run(values: FlagValues<O & typeof HELP_FLAG>, positionals: string[]): number | Promise<number>
}

/** A command that parses its flags, answers --help, and prints its usage errors the same way as every other. */
export function defineCommand<O extends Options>(spec: CommandSpec<O>): Command {
  const flags = { ...spec.flags, ...HELP_FLAG }
  return {
    summary: spec.summary,
    async run(args) {
      let parsed
      try {
        parsed = parseFlags(spec.name, args, flags, spec.positionals)
      } catch (error) {
        if (spec.mistake) return spec.mistake((error as UsageError).cause)
        return usageFailure(spec.name, error)
      }
      if (parsed.values.help) {
        process.stdout.write(spec.help)
        return 0
      }
      try {
        return await spec.run(parsed.values as FlagValues<O & typeof HELP_FLAG>, parsed.positionals)
      } catch (error) {
        return usageFailure(spec.name, error)
      }
    },
  }
}
