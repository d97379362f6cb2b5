/**
 * One prompt at a time. Requests wait in arrival order; one whose signal
 * aborted while it waited is skipped without showing anything.
 */
export class PromptQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(signal: AbortSignal, job: () => Promise<T>, skipped: () => T): Promise<T> {
    const result = this.tail.then(() => (signal.aborted ? skipped() : job()))
    // a failed prompt must not stop the ones behind it
    this.tail = result.catch(() => {})
    return result
  }
}
