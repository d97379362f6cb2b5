/**
 * The `sessions` service: opens sessions under the kernel's data directory and
 * closes them when the kernel stops.
 *
 * Plugins are told of a session's life: `session/opened` when this service
 * opens one (a new log, or one reopened with its events), `session/ending`
 * when a host ends one with `end()` — awaited, so listeners can still append
 * to it. Neither can stop anything: a listener that throws or rejects is
 * ignored.
 */
import { Context, Service } from 'cordis'
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
    /** a host is ending a session (`ctx.sessions.end`); awaited before the log closes */
    'session/ending'(session: Session, info: SessionEnding): void | Promise<void>
  }
}

type Listener = (session: Session, info: object) => unknown

/** Every listener's promise, settled whatever it does. */
function tell(ctx: Context, name: 'session/opened' | 'session/ending', session: Session, info: object): Promise<unknown> {
  const pending: Promise<unknown>[] = []
  for (const listener of listenerList(ctx, name).current() as readonly Listener[]) {
    try {
      pending.push(Promise.resolve(listener(session, info)).catch(() => {}))
    } catch {}
  }
  return Promise.all(pending)
}

export interface SessionServiceConfig {
  /** the kernel's data directory (default `.dsh`) */
  dataDir?: string
}

export class SessionService extends Service {
  readonly dir: string
  private opened = new Map<string, Session>()

  constructor(ctx: Context, config: SessionServiceConfig = {}) {
    super(ctx, 'sessions', true)
    this.dir = join(resolve(config.dataDir ?? '.dsh'), 'sessions')
  }

  /** Open (or reopen and recover) a session. Opening an open id returns it. */
  open(options: SessionOptions = {}): Session {
    const existing = options.id === undefined ? undefined : this.opened.get(options.id)
    if (existing && options.dir === undefined) return existing
    const session = new Session(this.dir, options)
    this.opened.set(session.id, session)
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
  async end(session: Session, info: SessionEnding): Promise<void> {
    await tell(this.ctx, 'session/ending', session, { reason: String(info?.reason ?? '') } satisfies SessionEnding)
    await session.flush().catch(() => {})
    session.close()
  }

  /** The sessions this service has open. */
  list(): Session[] {
    return [...this.opened.values()]
  }

  protected override stop(): void {
    for (const session of [...this.opened.values()]) session.close()
  }
}
