/**
 * `notifications/progress` for a `tools/call` that carried a `progressToken`:
 * every half second while the call runs, `progress` is the seconds it has run
 * (MCP wants a value that grows with every notification; a body's own counts
 * need not) and `message` is the body's latest report (`ToolCall.progress`):
 * bash's output so far, run_code's sub-calls done. A report given as a
 * function is read only here, once per notification.
 */
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js'
import { describeError } from '@dsh/kernel'
import type { ProgressReport } from '@dsh/tools'

export const PROGRESS_INTERVAL_MS = 500
const MAX_MESSAGE_CHARS = 500

export interface ProgressTracker {
  /** the body's report: the pipeline's `onProgress` */
  report(report: ProgressReport): void
  stop(): void
}

function read(report: ProgressReport | undefined): string {
  if (report === undefined) return 'running'
  try {
    const text = String(typeof report === 'function' ? report() : report)
    return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text
  } catch (error) {
    return `running (the progress report failed: ${describeError(error)})`
  }
}

export function trackProgress(
  token: string | number,
  send: (notification: ProgressNotification) => Promise<void>,
  onError: (error: unknown) => void,
): ProgressTracker {
  const started = Date.now()
  let latest: ProgressReport | undefined
  let last = 0
  const timer = setInterval(() => {
    // strictly increasing even if the clock stalls
    const progress = Math.max(last + 0.001, (Date.now() - started) / 1000)
    last = progress
    send({ method: 'notifications/progress', params: { progressToken: token, progress, message: read(latest) } }).catch(onError)
  }, PROGRESS_INTERVAL_MS)
  // a call in progress keeps the process alive by itself; the ticker must not
  timer.unref()
  return {
    report(report) {
      latest = report
    },
    stop() {
      clearInterval(timer)
    },
  }
}
