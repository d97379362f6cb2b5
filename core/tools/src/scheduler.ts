/**
 * Scheduling by concurrency class: `parallel` calls may run together,
 * `exclusive` calls run alone (a readers–writer lock, first come first served,
 * so a waiting exclusive call is not starved by a stream of parallel ones).
 */
import type { Concurrency, ToolDefinition } from './types.js'

/** The class of one call; a classifier that throws or answers nonsense counts as exclusive. */
export function classify(def: ToolDefinition | undefined, args: unknown): Concurrency {
  if (!def) return 'exclusive'
  const c = def.concurrency
  if (c === 'parallel') return 'parallel'
  if (typeof c !== 'function') return 'exclusive'
  try {
    return c(args as any) === 'parallel' ? 'parallel' : 'exclusive'
  } catch {
    return 'exclusive'
  }
}

interface Waiter {
  kind: Concurrency
  start: () => unknown
}

export class ToolScheduler {
  private running = 0
  private exclusive = false
  private queue: Waiter[] = []
  private idleWaiters: Array<() => void> = []

  /** Resolves once nothing runs and nothing waits (at once if so already). */
  idle(): Promise<void> {
    if (!this.running && !this.queue.length) return Promise.resolve()
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve))
  }

  /** Run `task` when its class allows; resolves or rejects with the task. */
  run<T>(kind: Concurrency, task: () => Promise<T>): Promise<T> {
    // nothing waiting and room to run: start now, with no queue entry and no wrapping promise
    if (!this.queue.length && !this.exclusive && (kind === 'parallel' || this.running === 0)) return this.start(kind, task)
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ kind, start: () => this.start(kind, task).then(resolve, reject) })
      this.drain()
    })
  }

  private start<T>(kind: Concurrency, task: () => Promise<T>): Promise<T> {
    this.running++
    if (kind === 'exclusive') this.exclusive = true
    let running: Promise<T>
    try {
      running = task()
    } catch (error) {
      running = Promise.reject(error)
    }
    const done = () => {
      this.running--
      if (kind === 'exclusive') this.exclusive = false
      this.drain()
      if (!this.running && !this.queue.length && this.idleWaiters.length) {
        for (const resolve of this.idleWaiters.splice(0)) resolve()
      }
    }
    running.then(done, done)
    return running
  }

  private drain(): void {
    while (this.queue.length) {
      const head = this.queue[0]
      if (this.exclusive) return
      if (head.kind === 'exclusive' && this.running > 0) return
      this.queue.shift()
      head.start()
      if (head.kind === 'exclusive') return
    }
  }
}
