/**
 * The signal one upstream request is sent with, aborted when its call's
 * signal is. Not the call's own signal: the SDK adds an `abort` listener to
 * the signal it is given and never removes it, and a call's signal may be
 * long-lived and shared (a caller without one gets the kernel's
 * never-aborting signal). Not an `AbortController` per request either: an
 * EventTarget made and dropped per call is a measurable share of the call's
 * cost (docs/measurements/2026-12-02-mcp-servers.md).
 *
 * What the SDK (1.32.2, pinned) reads of a request's signal: `aborted`,
 * `reason`, `throwIfAborted()` and `addEventListener('abort', …)`; this holds
 * exactly that. test/mcp-servers/lifecycle.spec.ts checks that a cancelled
 * call reaches the server as `notifications/cancelled`.
 */
export class RequestSignal {
  aborted = false
  reason: unknown = undefined
  private listeners: Array<() => void> = []

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.listeners.push(listener)
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.listeners = this.listeners.filter((l) => l !== listener)
  }

  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    for (const listener of this.listeners.splice(0)) listener()
  }

  /** as the SDK's type wants it */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal
  }
}
