/**
 * The append-only JSONL writer behind a session. Appends made in the same
 * synchronous stretch are batched into one `write`; the batch is written at the
 * end of the current microtask queue, so `append` resolves only once its line is
 * in the file (the page cache), and — for durable classes — after `fsync`.
 * A line written `later` waits for the next urgent write or the next turn of the
 * event loop, whichever comes first, so back-to-back calls share one `write`.
 * A failed write rejects every append of the batch and leaves the writer
 * failed: later appends reject too (an audit log with holes is worse than none).
 */
import { closeSync, constants, fstatSync, fsync, openSync, writeSync } from 'node:fs'
import { KernelError } from '../errors.js'

interface Pending {
  line: string
  durable: boolean
  resolve: () => void
  reject: (error: unknown) => void
}

export class LogWriter {
  private fd: number
  private queue: Pending[] = []
  private scheduled = false
  private lazy = false
  private failure?: KernelError
  private closed = false

  constructor(readonly path: string) {
    // O_NOFOLLOW: a symlink planted at the log's path is refused, not followed
    this.fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600)
    if (!fstatSync(this.fd).isFile()) {
      closeSync(this.fd)
      throw new KernelError('SESSION_WRITE_FAILED', `session log ${path} is not a regular file`)
    }
  }

  get failed(): KernelError | undefined {
    return this.failure
  }

  write(line: string, durable: boolean, later = false): Promise<void> {
    if (this.closed) return Promise.reject(new KernelError('SESSION_CLOSED', `session log ${this.path} is closed`))
    if (this.failure) return Promise.reject(this.failure)
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line, durable, resolve, reject })
      if (later && !durable) {
        if (!this.lazy && !this.scheduled) {
          this.lazy = true
          setImmediate(() => this.flush())
        }
      } else if (!this.scheduled) {
        this.scheduled = true
        queueMicrotask(() => this.flush())
      }
    })
  }

  /** Resolves once everything queued so far is written (or rejects with the failure). */
  drain(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    if (!this.queue.length) return Promise.resolve()
    return this.write('', false)
  }

  private flush(): void {
    this.scheduled = false
    this.lazy = false
    const batch = this.queue
    this.queue = []
    if (!batch.length) return
    try {
      this.writeAll(batch.length === 1 ? batch[0].line : batch.map((p) => p.line).join(''))
    } catch (cause) {
      this.failure = new KernelError('SESSION_WRITE_FAILED', `cannot append to ${this.path}: ${(cause as Error).message}`, { cause })
      for (const p of batch) p.reject(this.failure)
      return
    }
    const durable: Pending[] = []
    for (const p of batch) {
      if (p.durable) durable.push(p)
      else p.resolve()
    }
    if (!durable.length) return
    fsync(this.fd, (error) => {
      if (!error) return durable.forEach((p) => p.resolve())
      this.failure = new KernelError('SESSION_WRITE_FAILED', `cannot fsync ${this.path}: ${error.message}`, { cause: error })
      durable.forEach((p) => p.reject(this.failure))
    })
  }

  /** Write all of `text`; the common case is one string write with no Buffer copy. */
  private writeAll(text: string): void {
    const written = writeSync(this.fd, text)
    if (written === text.length && written === Buffer.byteLength(text)) return
    const buffer = Buffer.from(text)
    let offset = written
    while (offset < buffer.length) {
      const more = writeSync(this.fd, buffer, offset)
      // a write that makes no progress would spin forever
      if (more <= 0) throw new Error(`write made no progress at byte ${offset} of ${buffer.length}`)
      offset += more
    }
  }

  /** Flush what is queued and close the file. */
  close(): void {
    if (this.closed) return
    this.flush()
    this.closed = true
    try {
      closeSync(this.fd)
    } catch {}
  }
}
