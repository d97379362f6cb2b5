/**
 * The start-up snapshot of `dsh mcp`'s first answers: the `instructions` its `initialize` carried,
 * the tool list its `tools/list` answered and the transport's limits, kept from the last start with
 * the same key (dsh's build, node, the working directory, the config file's path and bytes). With
 * one, `dsh mcp` answers `initialize` and `tools/list` while the kernel starts; a tool call waits
 * for the kernel, so no call runs before the policy is in force. Once the kernel is up, a list that
 * differs from the snapshot's is announced (`tools/list_changed`) and the snapshot rewritten.
 *
 * Kept in the user's cache directory, outside the workspace: what it holds is sent to the model
 * (descriptions, instructions), so a confined command must not be able to write it. A snapshot
 * inside the working directory, not owned by this user, writable by others or not a regular file
 * is not used.
 */
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, constants } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, relative, isAbsolute, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EarlyAnswer } from '@dsh/mcp'
import type { McpLimits } from '../../config/mcp-limits.js'

/** What a start answered first, and the transport's limits it ran with. */
export interface FirstAnswer extends EarlyAnswer {
  limits: McpLimits
}

const FORMAT = 1
/** snapshots kept (one per working directory and config): the oldest beyond these go when one is written */
const KEEP = 64
/** a snapshot is a few tools' schemas: anything larger is not one */
const MAX_BYTES = 4 * 1024 * 1024

/** `$XDG_CACHE_HOME/dsh/first-answer`, else `~/.cache/dsh/first-answer`. */
export function firstAnswerDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache')
  return join(base, 'dsh', 'first-answer')
}

/**
 * The running build: this module's file, the command's script and the bundle beside it, each by its
 * path, modification time and size (a rebuild or an upgrade makes another key).
 */
export function buildId(): string {
  const script = process.argv[1] ? real(process.argv[1]) : ''
  const files = [fileURLToPath(import.meta.url), script, script && join(dirname(script), '..', 'dist', 'cli.cjs')]
  return files.map((file) => {
    try {
      const stat = statSync(file)
      return `${file}:${stat.mtimeMs}:${stat.size}`
    } catch {
      return `${file}:-`
    }
  }).join('\n')
}

/**
 * The snapshot's file for this start, or undefined when none may be used: a config file that cannot
 * be read (the kernel's start reports it), or a cache directory inside the working directory.
 */
export function firstAnswerFile(input: { configFile?: string; cwd?: string; build: string; env?: NodeJS.ProcessEnv }): string | undefined {
  const cwd = input.cwd ?? process.cwd()
  const dir = firstAnswerDir(input.env)
  if (inside(real(dirname(dirname(dir))), real(cwd))) return undefined
  const hash = createHash('sha256')
  hash.update(JSON.stringify({ format: FORMAT, build: input.build, node: process.version, execPath: process.execPath, cwd: real(cwd) }))
  if (input.configFile) {
    try {
      const path = realpathSync(input.configFile)
      hash.update(`\0${path}\0`).update(readFileSync(path))
    } catch {
      return undefined
    }
  }
  return join(dir, `${hash.digest('hex').slice(0, 40)}.json`)
}

/** The snapshot at `file`, or undefined when there is none or it may not be used (see the module's comment). */
export function readFirstAnswer(file: string): FirstAnswer | undefined {
  const uid = process.getuid?.()
  try {
    const dir = lstatSync(dirname(file))
    if (!dir.isDirectory() || (uid !== undefined && dir.uid !== uid) || dir.mode & 0o022) return undefined
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
    try {
      const stat = fstatSync(fd)
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || stat.mode & 0o022 || stat.size > MAX_BYTES) return undefined
      return checked(JSON.parse(readFileSync(fd, 'utf8')))
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
}

/** Write the snapshot (a sibling temporary file renamed into place, 0600 in a 0700 directory); a failure is returned, not thrown. */
export function writeFirstAnswer(file: string, answer: FirstAnswer): Error | undefined {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    writeFileSync(temporary, JSON.stringify(answer), { mode: 0o600, flag: 'wx' })
    renameSync(temporary, file)
    prune(dirname(file))
    return undefined
  } catch (error) {
    rmSync(temporary, { force: true })
    return error as Error
  }
}

/** Whether a start found the answers it now has (the same instructions and tools as the snapshot). */
export function sameAnswer(a: FirstAnswer, b: FirstAnswer): boolean {
  return a.instructions === b.instructions && JSON.stringify(a.tools) === JSON.stringify(b.tools) && JSON.stringify(a.limits) === JSON.stringify(b.limits)
}

function checked(value: unknown): FirstAnswer | undefined {
  if (!value || typeof value !== 'object') return undefined
  const { instructions, tools, limits } = value as Record<string, unknown>
  if (typeof instructions !== 'string' || !Array.isArray(tools) || !limits || typeof limits !== 'object') return undefined
  if (!tools.every((tool) => tool && typeof tool === 'object' && typeof (tool as { name?: unknown }).name === 'string')) return undefined
  const numbers = ['maxMessageBytes', 'maxConcurrentCalls', 'maxBytesInFlight', 'otelFlushTimeoutMs'] as const
  if (!numbers.every((key) => Number.isSafeInteger((limits as Record<string, unknown>)[key]) && ((limits as Record<string, number>)[key] > 0))) return undefined
  return { instructions, tools: tools as FirstAnswer['tools'], limits: limits as McpLimits }
}

function prune(dir: string): void {
  const entries = readdirSync(dir).filter((name) => name.endsWith('.json'))
  if (entries.length <= KEEP) return
  const aged = entries.map((name) => {
    try {
      return { name, at: lstatSync(join(dir, name)).mtimeMs }
    } catch {
      return { name, at: 0 }
    }
  }).sort((a, b) => a.at - b.at)
  for (const { name } of aged.slice(0, aged.length - KEEP)) rmSync(join(dir, name), { force: true })
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}
