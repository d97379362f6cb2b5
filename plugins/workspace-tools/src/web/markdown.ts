/**
 * HTML → Markdown for web_fetch, off the server's thread: a page is handed to
 * a worker thread (markdown-worker.js, which alone loads turndown) and the
 * call's signal — the fetch's deadline or the caller's abort — terminates
 * that thread, so a page that converts slowly costs its call the time and
 * nothing more. A thread that finished is kept for the next page (one kept,
 * unreferenced, ended after IDLE_MS or when the plugin goes), so turndown's
 * import is paid once rather than per page; pages converted at the same time
 * each get a thread of their own.
 */
import { Worker } from 'node:worker_threads'

/** found when the first page is converted (the CLI's bundle finds a package's files on first use) */
const workerUrl = () => new URL('./markdown-worker.js', import.meta.url)
/** the heap one thread may use: the DOM of a capped page, with room to spare */
const MAX_HEAP_MB = 512
/** how long a kept thread waits for the next page before it is ended */
const IDLE_MS = 60_000

type Answer = { markdown?: unknown; error?: unknown }

export class MarkdownConverter {
  private idle?: { thread: Worker; timer: NodeJS.Timeout; gone: () => void }
  private closed = false
  private readonly busy = new Set<Worker>()

  /** `html` as Markdown; rejects when `signal` fires first (its thread is terminated) or the conversion fails. */
  convert(html: string, signal: AbortSignal): Promise<string> {
    if (signal.aborted) return Promise.reject(signal.reason)
    if (this.closed) return Promise.reject(new Error('the HTML converter is closed (workspace-tools was unloaded)'))
    const thread = this.take()
    this.busy.add(thread)
    return new Promise<string>((resolve, reject) => {
      let settled = false
      const finish = (keep: boolean, settle: () => void) => {
        if (settled) return
        settled = true
        signal.removeEventListener('abort', onAbort)
        thread.off('message', onMessage)
        thread.off('error', onError)
        thread.off('exit', onExit)
        this.busy.delete(thread)
        if (keep) this.keep(thread)
        else void thread.terminate()
        settle()
      }
      const onAbort = () => finish(false, () => reject(signal.reason))
      const onMessage = (answer: Answer) => finish(typeof answer?.markdown === 'string', () => (
        typeof answer?.markdown === 'string' ? resolve(answer.markdown) : reject(new Error(`the HTML converter failed: ${String(answer?.error ?? 'no text in its answer')}`))
      ))
      const onError = (error: Error) => finish(false, () => reject(new Error(`the HTML converter failed: ${error.message}`, { cause: error })))
      const onExit = (code: number) => finish(false, () => reject(new Error(`the HTML converter exited with code ${code} before answering`)))
      signal.addEventListener('abort', onAbort, { once: true })
      thread.on('message', onMessage)
      thread.once('error', onError)
      thread.once('exit', onExit)
      thread.ref()
      thread.postMessage({ html })
    })
  }

  /** End every thread, kept or converting (their conversions fail). */
  close(): void {
    this.closed = true
    this.dropIdle()
    for (const thread of this.busy) void thread.terminate()
  }

  private take(): Worker {
    const kept = this.idle
    if (kept) {
      clearTimeout(kept.timer)
      kept.thread.off('exit', kept.gone).off('error', kept.gone)
      this.idle = undefined
      return kept.thread
    }
    // execArgv: [] — the worker needs no flag of the host's, and some (--input-type, loaders) break it
    return new Worker(workerUrl(), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB } })
  }

  private keep(thread: Worker): void {
    if (this.closed || this.idle) return void thread.terminate()
    // Why unref: a kept thread must not keep the process alive
    thread.unref()
    const timer = setTimeout(() => this.dropIdle(), IDLE_MS)
    timer.unref()
    // a kept thread that dies is forgotten, never handed a page it cannot answer
    const gone = () => {
      if (this.idle?.thread === thread) this.dropIdle()
    }
    thread.once('exit', gone).once('error', gone)
    this.idle = { thread, timer, gone }
  }

  private dropIdle(): void {
    const kept = this.idle
    if (!kept) return
    this.idle = undefined
    clearTimeout(kept.timer)
    kept.thread.off('exit', kept.gone).off('error', kept.gone)
    void kept.thread.terminate()
  }
}
