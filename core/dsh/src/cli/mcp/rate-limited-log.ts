/**
 * Lines a peer can cause as fast as it likes (a client's malformed messages,
 * a collector's failed exports) go to stderr rate-limited: at most `burst`
 * lines in each `windowMs`, then one line saying how many were left out when
 * the next window opens. No timer is kept: the count is settled by the next
 * line, or by `flush()` at shutdown.
 */

export interface RateLimitedLog {
  (line: string): void
  /** say how many lines were left out, if any (at shutdown) */
  flush(): void
}

export function rateLimitedLog(write: (line: string) => void, options: { burst?: number; windowMs?: number; what?: string; now?: () => number } = {}): RateLimitedLog {
  const burst = options.burst ?? 5
  const windowMs = options.windowMs ?? 10_000
  const now = options.now ?? Date.now
  const what = options.what ?? 'such lines'
  let windowStart = -Infinity
  let written = 0
  let dropped = 0
  const flush = () => {
    if (!dropped) return
    write(`… ${dropped} more ${what} left out`)
    dropped = 0
  }
  const log = ((line: string) => {
    const t = now()
    if (t - windowStart >= windowMs) {
      flush()
      windowStart = t
      written = 0
    }
    if (written < burst) {
      written++
      write(line)
    } else dropped++
  }) as RateLimitedLog
  log.flush = flush
  return log
}
