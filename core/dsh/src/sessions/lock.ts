/**
 * One process at a time on a session log: `<id>.lock` next to `<id>.jsonl`,
 * created exclusively (`wx`) and holding the owner's pid. A lock whose pid is
 * no longer alive is stale (its owner crashed) and is taken over. Taking over
 * happens under a second, short-lived exclusive file (`<id>.lock.takeover`),
 * and the lock is read again under it, so two processes that both found the
 * same stale lock cannot both end up holding the session: the second one
 * finds the first one's live lock.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { pidAlive } from '@dsh/kernel'
import { SESSION_ID } from './store.js'

/** Another live process holds the session (or its lock could not be taken over). */
export class SessionLockedError extends Error {
  constructor(message: string, readonly session: string, readonly lock: string, readonly pid?: number) {
    super(message)
    this.name = 'SessionLockedError'
  }
}

export interface SessionLock {
  readonly path: string
  /** remove the lock if it is still ours; idempotent */
  release(): void
}

/** a takeover file older than this was left by a process that died while taking over */
const TAKEOVER_STALE_MS = 10_000

/** a lock file naming no pid is stale once older than this (a live holder writes its pid at once) */
const UNWRITTEN_STALE_MS = 1_000

/** How long ago `path` was last changed; 0 when it cannot be read (not stale). */
function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs
  } catch {
    return 0
  }
}

/** The pid a lock file names, or undefined for a file that names none (torn, foreign). */
function holderOf(path: string): number | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  const pid = Number(/^(\d+)\n?$/.exec(text)?.[1])
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

/** Create `path` exclusively holding `content`; false when it exists. */
function create(path: string, content: string): boolean {
  let fd: number
  try {
    fd = openSync(path, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
  return true
}

function remove(path: string): void {
  try {
    unlinkSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/** Remove the lock at `path` if it is (still) stale; under the takeover file. */
function takeOver(path: string): void {
  const takeover = `${path}.takeover`
  if (!create(takeover, `${process.pid}\n`)) {
    // someone is taking over now — or died doing it, long ago
    if (ageMs(takeover) > TAKEOVER_STALE_MS) remove(takeover)
    return
  }
  try {
    const holder = holderOf(path)
    // Why wait for a pid-less file to age: a holder writes its pid just after creating the file
    if (holder === undefined ? ageMs(path) > UNWRITTEN_STALE_MS : !pidAlive(holder)) remove(path)
  } finally {
    remove(takeover)
  }
}

/**
 * Lock the session whose log is `logPath`, or throw `SessionLockedError`
 * naming the session and the pid holding it.
 */
export function lockSession(id: string, logPath: string): SessionLock {
  // an id with a slash or dots would put the lock file somewhere else
  if (!SESSION_ID.test(id)) throw new Error(`${JSON.stringify(id)} is not a session id (letters, digits, ".", "_" and "-")`)
  const path = logPath.replace(/\.jsonl$/, '') + '.lock'
  const mine = `${process.pid}\n`
  for (let attempt = 0; attempt < 5; attempt++) {
    if (create(path, mine)) {
      let released = false
      return {
        path,
        release() {
          if (released) return
          released = true
          if (holderOf(path) === process.pid) remove(path)
        },
      }
    }
    const holder = holderOf(path)
    if (holder === undefined && ageMs(path) <= UNWRITTEN_STALE_MS) {
      throw new SessionLockedError(`session ${JSON.stringify(id)} is being locked by another process (lock file ${path} names no pid yet); one process at a time may append to a session`, id, path)
    }
    if (holder !== undefined && pidAlive(holder)) {
      const who = holder === process.pid ? 'this process' : `process ${holder}`
      throw new SessionLockedError(`session ${JSON.stringify(id)} is in use by ${who} (lock file ${path}); one process at a time may append to a session`, id, path, holder)
    }
    takeOver(path)
  }
  throw new SessionLockedError(`session ${JSON.stringify(id)}: its lock file ${path} could not be taken over (it keeps changing)`, id, path)
}
