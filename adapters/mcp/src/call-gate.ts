/**
 * At most `limit` tool calls of a connection run at once (`mcp.maxConcurrentCalls`);
 * the rest wait in arrival order. Each running call holds what its result
 * will weigh, so this cap (with the transport's bytes-in-flight cap) is what
 * bounds the server's memory under a flood of calls. A waiting call whose
 * signal fires leaves the queue at once (the pipeline then records it
 * aborted before dispatch), so cancelling stays instant.
 */

export class CallGate {
  private running = 0
  private waiting: Array<() => void> = []

  constructor(private readonly limit: number) {}

  /** calls running now */
  get active(): number {
    return this.running
  }

  /** calls waiting for a place */
  get queued(): number {
    return this.waiting.length
  }

  /** Resolves with the release once the call may run (or at once when `signal` fires: a no-op release). */
  acquire(signal: AbortSignal): Promise<() => void> | (() => void) {
    if (this.running < this.limit && !this.waiting.length) return this.take()
    if (signal.aborted) return noop
    return new Promise((resolve) => {
      const ready = () => {
        signal.removeEventListener('abort', onAbort)
        resolve(this.take())
      }
      const onAbort = () => {
        const i = this.waiting.indexOf(ready)
        if (i !== -1) this.waiting.splice(i, 1)
        resolve(noop)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(ready)
    })
  }

  private take(): () => void {
    this.running++
    let released = false
    return () => {
      if (released) return
      released = true
      this.running--
      this.waiting.shift()?.()
    }
  }
}

const noop = () => {}
