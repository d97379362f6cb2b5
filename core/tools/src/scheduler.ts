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
  start: () => void
}

export class ToolScheduler {
  private running = 0
  private exclusive = false
  private queue: Waiter[] = []

  /** Run `task` when its class allows; resolves or rejects with the task. */
  run<T>(kind: Concurrency, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++
        if (kind === 'exclusive') this.exclusive = true
        task().then(resolve, reject).finally(() => {
          this.running--
          if (kind === 'exclusive') this.exclusive = false
          this.drain()
        })
      }
      this.queue.push({ kind, start })
      this.drain()
    })
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
