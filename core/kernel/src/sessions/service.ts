/**
 * The `sessions` service: opens sessions under the kernel's data directory and
 * closes them when the kernel stops.
 *
 * Plugins are told of a session's life: `session/opened` when this service
 * opens one (a new log, or one reopened with its events), `session/ending`
 * once when it ends — a host's `end()`, a host's own `session.close()` (reason
 * `other`), or the kernel stopping (dsh's kernel ends every open session
 * first) — awaited, so listeners can still append to it. Neither can stop
 * anything: a listener that throws or rejects is ignored.
 */
import { Context, Service } from 'cordis'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { listenerList } from '../listener-list.js'
import { Session, type SessionOptions } from './session.js'

/** How a session came to be open: `startup` a new log, `resume` a log that held events. */
export interface SessionOpened {
  source: 'startup' | 'resume'
}

/** Why a host ended a session, in its own words. */
export interface SessionEnding {
  reason: string
}

declare module 'cordis' {
  interface Context {
    sessions: SessionService
  }
  interface Events {
    /** a session was opened by the sessions service (not told again for an id already open) */
    'session/opened'(session: Session, info: SessionOpened): void | Promise<void>
    /** a session is ending (`ctx.sessions.end`, its own `close()`, the kernel stopping); told once, awaited before the log closes */
    'session/ending'(session: Session, info: SessionEnding): void | Promise<void>
  }
}

type Listener = (session: Session, info: object) => unknown

/** Every listener's promise, settled whatever it does; undefined when none returned one (nothing to wait for). */
function tell(ctx: Context, name: 'session/opened' | 'session/ending', session: Session, info: object): Promise<unknown> | undefined {
  const pending: Promise<unknown>[] = []
  for (const listener of listenerList(ctx, name).current() as readonly Listener[]) {
    try {
      const result = listener(session, info)
      if (result && typeof (result as PromiseLike<unknown>).then === 'function') pending.push(Promise.resolve(result).catch(() => {}))
    } catch {}
  }
  return pending.length ? Promise.all(pending) : undefined
}

/** A session this service opened: its own close, and its ending once begun. */
interface Ending {
  close: () => void
  done?: Promise<void>
}

export interface SessionServiceConfig {
  /** the kernel's data directory (default `.dsh`) */
  dataDir?: string
}

export class SessionService extends Service {
  readonly dir: string
  private opened = new Map<string, Session>()
  private endings = new WeakMap<Session, Ending>()

  private dataDir: string
  private dataDirReady = false

  constructor(ctx: Context, config: SessionServiceConfig = {}) {
    super(ctx, 'sessions', true)
    this.dataDir = resolve(config.dataDir ?? '.dsh')
    this.dir = join(this.dataDir, 'sessions')
  }

  /**
   * Create the data directory when it is not there, with a `.gitignore` of `*` in it: the logs hold
   * every result, secrets included, and must not be committed by a `git add .`. A directory that
   * exists is left as it is (its owner may have removed the file on purpose).
   */
  private makeDataDir(): void {
    if (this.dataDirReady) return
    let made: string | undefined
    try {
      made = mkdirSync(this.dataDir, { recursive: true, mode: 0o700 })
    } catch {
      return // the session's own mkdir reports what is wrong
    }
    if (made !== undefined) writeFileSync(join(this.dataDir, '.gitignore'), '# written by dsh: session logs hold every tool result\n*\n', { flag: 'wx' })
    this.dataDirReady = true
  }

  /** Open (or reopen and recover) a session. Opening an open id returns it. */
  open(options: SessionOptions = {}): Session {
    const existing = options.id === undefined ? undefined : this.opened.get(options.id)
    if (existing && options.dir === undefined) return existing
    if (options.dir === undefined) this.makeDataDir()
    const session = new Session(this.dir, options)
    this.opened.set(session.id, session)
    const ending: Ending = { close: session.close.bind(session) }
    this.endings.set(session, ending)
    // Why: a host closing the session itself ends it all the same — its ending listeners run first, once
    session.close = () => this.closing(session, ending)
    session.onClose(() => {
      if (this.opened.get(session.id) === session) this.opened.delete(session.id)
    })
    void tell(this.ctx, 'session/opened', session, { source: session.recovery.events.length ? 'resume' : 'startup' } satisfies SessionOpened)
    return session
  }

  /**
   * End a session: tell the `session/ending` listeners and wait for them
   * (they may still append), flush the log, close it. Never rejects.
   */
  end(session: Session, info: SessionEnding): Promise<void> {
    const ending = this.endings.get(session)
    if (ending?.done) return ending.done
    const close = ending?.close ?? (() => session.close())
    const done = (async () => {
      await tell(this.ctx, 'session/ending', session, { reason: String(info?.reason ?? '') } satisfies SessionEnding)
      await session.flush().catch(() => {})
      close()
    })()
    if (ending) ending.done = done
    return done
  }

  /**
   * `session.close()` on a session this service opened: the `session/ending`
   * listeners are told (reason `other`) as by `end()`, once; with nothing to
   * wait for it closes at once, else when they are done (the log stays open
   * for what they append).
   */
  private closing(session: Session, ending: Ending): void {
    if (ending.done) return
    const told = tell(this.ctx, 'session/ending', session, { reason: 'other' } satisfies SessionEnding)
    if (!told) {
      ending.done = Promise.resolve()
      return ending.close()
    }
    ending.done = told.then(() => session.flush().catch(() => {})).then(() => ending.close())
  }

  /** The sessions this service has open. */
  list(): Session[] {
    return [...this.opened.values()]
  }

  /** Closes what is still open without telling anyone: the kernel ends its sessions (`end`) before it stops. */
  protected override stop(): void {
    for (const session of [...this.opened.values()]) (this.endings.get(session)?.close ?? (() => session.close()))()
  }
}
