/**
 * The running servers of one kernel, shared across reloads: a reload
 * disposes the plugin and starts it again with the new config, and a server
 * whose config did not change is handed from the old instance to the new
 * one instead of being restarted. A server nobody takes within the grace is
 * stopped; the kernel's stop stops them all at once.
 */
import type { Context } from 'cordis'
import type { UpstreamServer } from './server.js'

/** how long a released server waits for the next instance of the plugin (a reload) */
const HANDOFF_GRACE_MS = 1000

interface Entry {
  key: string
  server: UpstreamServer
  holders: number
  timer?: NodeJS.Timeout
}

export class ServerPool {
  private entries = new Map<string, Entry>()
  private stopped = false

  /** The running server of this name and key, or a new one made by `make`. */
  acquire(name: string, key: string, make: () => UpstreamServer): UpstreamServer {
    if (this.stopped) throw new Error('the kernel is stopping')
    const entry = this.entries.get(name)
    if (entry && entry.key === key && entry.server.state !== 'failed' && entry.server.state !== 'stopped') {
      clearTimeout(entry.timer)
      entry.timer = undefined
      entry.holders++
      return entry.server
    }
    if (entry) void this.drop(name, entry)
    const server = make()
    this.entries.set(name, { key, server, holders: 1 })
    return server
  }

  release(name: string, server: UpstreamServer): void {
    const entry = this.entries.get(name)
    if (!entry || entry.server !== server) return
    if (--entry.holders > 0) return
    clearTimeout(entry.timer)
    entry.timer = setTimeout(() => void this.drop(name, entry), HANDOFF_GRACE_MS)
    entry.timer.unref?.()
  }

  private drop(name: string, entry: Entry): Promise<void> {
    clearTimeout(entry.timer)
    if (this.entries.get(name) === entry) this.entries.delete(name)
    return entry.server.stop()
  }

  /** Stop every server now; resolves once their processes are gone. */
  async stopAll(): Promise<void> {
    this.stopped = true
    await Promise.all([...this.entries].map(([name, entry]) => this.drop(name, entry)))
  }

  /** for inspection and tests: the servers running now */
  list(): UpstreamServer[] {
    return [...this.entries.values()].map((e) => e.server)
  }
}

const pools = new WeakMap<object, ServerPool>()

/** The pool of the kernel `ctx` belongs to (made on first use, stopped with the kernel). */
export function poolFor(ctx: Context): ServerPool {
  const root = ctx.root
  let pool = pools.get(root)
  if (!pool) {
    const made = new ServerPool()
    pool = made
    pools.set(root, made)
    root.on('dispose', () => {
      pools.delete(root)
      return made.stopAll()
    })
  }
  return pool
}
