/**
 * A client's configuration file as `dsh setup` changes it: read once (refusing a symbolic link,
 * a read-only file, anything that is not a regular file), changed in memory, shown as a unified
 * diff, written back whole with a rename (so a reader never sees half a file) keeping its mode.
 * Every file of a setup is read and checked before the first is written.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createTwoFilesPatch } from 'diff'

/** A file that cannot be set up: the message names the file (and the line where there is one). */
export class ConfigFileError extends Error {}

export interface ConfigFile {
  /** the absolute path */
  path: string
  /** the text as read; undefined when the file does not exist yet */
  before: string | undefined
  /** the text to write (equal to `before`: nothing to do) */
  after: string
  /** the mode of a new file */
  newMode?: number
}

/** Read `path` for editing; undefined when it does not exist. */
export function readForEdit(path: string): string | undefined {
  let stat
  try {
    stat = lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new ConfigFileError(`${path}: cannot be read: ${(error as Error).message}`)
  }
  if (stat.isSymbolicLink()) {
    let target = '(a link that leads nowhere)'
    try {
      target = realpathSync(path)
    } catch {}
    throw new ConfigFileError(`${path} is a symbolic link to ${target}; dsh setup does not write through links: run it where the file is a regular file, or edit ${target} by hand`)
  }
  if (!stat.isFile()) throw new ConfigFileError(`${path} is not a regular file`)
  // the owner's write bit: a file its owner made read-only is left so, even for root
  if ((stat.mode & 0o200) === 0) throw new ConfigFileError(`${path} is read-only (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}); make it writable to let dsh setup change it, or make the change shown by --dry-run by hand`)
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigFileError(`${path}: cannot be read: ${(error as Error).message}`)
  }
}

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const upTo = text.slice(0, offset)
  const line = upTo.split('\n').length
  return { line, column: offset - upTo.lastIndexOf('\n') }
}

export function changed(file: ConfigFile): boolean {
  return file.before !== file.after
}

/** The unified diff of one file's change ('' when unchanged). */
export function diffOf(file: ConfigFile): string {
  if (!changed(file)) return ''
  const before = file.before ?? ''
  return createTwoFilesPatch(file.before === undefined ? '/dev/null' : file.path, file.path, before, file.after, undefined, undefined, { context: 3 })
    .split('\n')
    .filter((line) => !line.startsWith('=====') && !line.startsWith('Index: '))
    .join('\n')
}

/** Write every changed file (each by a rename of a sibling temporary file). */
export function writeAll(files: readonly ConfigFile[]): void {
  for (const file of files) {
    if (!changed(file)) continue
    const dir = dirname(file.path)
    mkdirSync(dir, { recursive: true })
    const mode = file.before === undefined ? (file.newMode ?? 0o644) : lstatSync(file.path).mode & 0o7777
    const temp = join(dir, `.${file.path.slice(dir.length + 1)}.dsh-setup-${process.pid}`)
    try {
      writeFileSync(temp, file.after, { flag: 'wx', mode })
      chmodSync(temp, mode)
      renameSync(temp, file.path)
    } catch (error) {
      rmSync(temp, { force: true })
      throw new ConfigFileError(`${file.path}: cannot be written: ${(error as Error).message}`)
    }
  }
}
