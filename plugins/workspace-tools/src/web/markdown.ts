/**
 * HTML → Markdown for web_fetch, off the server's thread: each conversion
 * runs on a worker thread of its own (markdown-worker.js, which alone loads
 * turndown), ended by the call's signal — the fetch's deadline or the
 * caller's abort — with the thread terminated, so a page that converts
 * slowly costs that call its time and nothing more.
 */
import { Worker } from 'node:worker_threads'

/** found when the first page is converted (the CLI's bundle finds a package's files on first use) */
const workerUrl = () => new URL('./markdown-worker.js', import.meta.url)
/** the heap one conversion may use: the DOM of a capped page, with room to spare */
const MAX_HEAP_MB = 512

/** `html` as Markdown; rejects when `signal` fires first (the thread is terminated) or the conversion fails. */
export function htmlToMarkdown(html: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    // execArgv: [] — the worker needs no flag of the host's, and some (--input-type, loaders) break it
    const thread = new Worker(workerUrl(), { workerData: { html }, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB } })
    let settled = false
    const finish = (settle: () => void) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      void thread.terminate()
      settle()
    }
    const onAbort = () => finish(() => reject(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    thread.once('message', (message: { markdown?: unknown }) => {
      finish(() => (typeof message?.markdown === 'string' ? resolve(message.markdown) : reject(new Error('the HTML converter answered no text'))))
    })
    thread.once('error', (error) => finish(() => reject(new Error(`the HTML converter failed: ${error.message}`, { cause: error }))))
    thread.once('exit', (code) => finish(() => reject(new Error(`the HTML converter exited with code ${code} before answering`))))
  })
}
