/**
 * Managed settings drop-ins. Beside `managed-settings.json` Claude Code reads
 * a `managed-settings.d/` directory: every `*.json` file in it (hidden ones
 * skipped) is merged over the base file in alphabetical order, so for a
 * scalar the alphabetically last file wins, and arrays concatenate. Each team
 * of an organisation can then ship its own fragment (`10-security.json`,
 * `50-platform.json`) without sharing one file.
 */
import { readdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { KernelError } from '@dsh/kernel'

export const MANAGED_SETTINGS_FILE = 'managed-settings.json'

/** The drop-in directory of a managed settings file, or undefined for any other file. */
export function dropInDirectory(file: string): string | undefined {
  return basename(file) === MANAGED_SETTINGS_FILE ? join(dirname(file), 'managed-settings.d') : undefined
}

/**
 * The drop-in files of `dir` in merge order (the base file's fragments,
 * alphabetical by code unit; hidden files and other extensions skipped). A
 * missing directory has none; one that cannot be listed is an `INVALID_CONFIG`
 * error naming it — administrator policy that cannot be read is never
 * silently left out.
 */
export function dropInFiles(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw new KernelError('INVALID_CONFIG', `${dir}: the managed settings drop-in directory cannot be read: ${(error as Error).message}`, { cause: error, details: { file: dir } })
  }
  return names.filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort().map((name) => join(dir, name))
}

/**
 * A settings file with the drop-ins that belong to it, highest precedence
 * first: the alphabetically last drop-in, …, the first, then the file itself.
 */
export function withDropIns(file: string): string[] {
  const dir = dropInDirectory(file)
  return dir ? [...dropInFiles(dir).reverse(), file] : [file]
}
