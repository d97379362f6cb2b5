/**
 * The session logs under a data directory (`<dataDir>/sessions/<id>.jsonl`),
 * read without changing them: a torn last line is reported, not cut off (the
 * kernel cuts it when the session is reopened), and a log that is not a
 * regular file is reported as a problem rather than followed.
 */
import { lstatSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describeError, recover, type SessionEvent } from '@dsh/kernel'

/** what a session id may be (the kernel's own rule) */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

export interface SessionLog {
  id: string
  path: string
  events: SessionEvent[]
  /** a torn last line or unparsable lines, as the kernel would report them */
  damage?: string
  /** last modification of the file (ms since the epoch) */
  modified: number
}

export interface SessionSummary {
  id: string
  path: string
  /** the first event's time, ISO 8601 (absent for an empty log) */
  started?: string
  calls: number
  errors: number
  lastEvent?: { type: string; time: string }
  damage?: string
}

export class SessionStore {
  constructor(readonly dir: string) {}

  /** The ids of the logs here, sorted; none when the directory does not exist. */
  ids(): string[] {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    return names.filter((n) => n.endsWith('.jsonl') && SESSION_ID.test(n.slice(0, -6))).map((n) => n.slice(0, -6)).sort()
  }

  pathOf(id: string): string {
    return join(this.dir, `${id}.jsonl`)
  }

  /** One log, or undefined when there is none by that id. Throws when it cannot be read. */
  read(id: string): SessionLog | undefined {
    const path = this.pathOf(id)
    let modified: number
    try {
      modified = lstatSync(path).mtimeMs
    } catch {
      return undefined
    }
    const recovery = recover(path, { repair: false })
    return { id, path, events: recovery.events, modified, ...(recovery.reason ? { damage: recovery.reason } : {}) }
  }

  /** Every readable log, with the problems of the others (`<id>: <why>`). */
  readAll(): { logs: SessionLog[]; problems: string[] } {
    const logs: SessionLog[] = []
    const problems: string[] = []
    for (const id of this.ids()) {
      try {
        const log = this.read(id)
        if (log) logs.push(log)
      } catch (error) {
        problems.push(`${id}: ${describeError(error)}`)
      }
    }
    return { logs, problems }
  }

  /** Remove a session's log and its spill directory (`<dataDir>/spill/<id>`); never follows a symlink. */
  remove(id: string): void {
    rmSync(this.pathOf(id), { force: true })
    const spill = join(this.dir, '..', 'spill', id)
    try {
      if (lstatSync(spill).isDirectory()) rmSync(spill, { recursive: true, force: true })
    } catch {}
  }
}

const iso = (time: number) => new Date(time).toISOString()

export function summarize(log: SessionLog): SessionSummary {
  let calls = 0
  let errors = 0
  for (const event of log.events) {
    if (event.type === 'tool/call') calls++
    else if (event.type === 'tool/result' && (event.data as { isError?: boolean } | null)?.isError) errors++
  }
  const first = log.events[0]
  const last = log.events[log.events.length - 1]
  return {
    id: log.id,
    path: log.path,
    ...(first ? { started: iso(first.time) } : {}),
    calls,
    errors,
    ...(last ? { lastEvent: { type: last.type, time: iso(last.time) } } : {}),
    ...(log.damage ? { damage: log.damage } : {}),
  }
}
