/**
 * The `sessions` service: opens sessions under the kernel's data directory and
 * closes them when the kernel stops.
 */
import { Context, Service } from 'cordis'
import { join, resolve } from 'node:path'
import { Session, type SessionOptions } from './session.js'

declare module 'cordis' {
  interface Context {
    sessions: SessionService
  }
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
    return session
  }

  /** The sessions this service has open. */
  list(): Session[] {
    return [...this.opened.values()]
  }

  protected override stop(): void {
    for (const session of [...this.opened.values()]) session.close()
  }
}
