/**
 * Counts what a server sends that nobody asked for (notifications), per
 * second; past the limit the server is cut off as a flood, instead of the
 * kernel spending its event loop on it.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export class FloodGuard {
  private windowStart = 0
  private count = 0

  constructor(private readonly perSecond: number, private readonly now: () => number = Date.now) {}

  /** True when `message` is one notification too many in the current second. */
  over(message: JSONRPCMessage): boolean {
    if ('id' in message) return false
    const now = this.now()
    if (now - this.windowStart >= 1000) {
      this.windowStart = now
      this.count = 0
    }
    return ++this.count > this.perSecond
  }
}
