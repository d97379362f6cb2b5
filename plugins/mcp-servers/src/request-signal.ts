/** The signal one upstream request is sent with, since the SDK never removes the listener it adds and a controller per call costs (docs/measurements/2026-12-02-mcp-servers.md). */
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
