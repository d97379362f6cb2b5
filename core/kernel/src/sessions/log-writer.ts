/** The append-only JSONL writer behind a session: a batch per synchronous stretch, one promise per batch, failed for good after a failed write, since an audit log with holes is worse than none (docs/decisions/2026-11-30-session-log-format.md). */
import { closeSync, constants, fstatSync, fsync, openSync, writeSync } from 'node:fs'
import { KernelError } from '../errors.js'

const RESOLVED = Promise.resolve()

class Deferred {
  readonly promise: Promise<void>
  resolve!: () => void
  reject!: (error: unknown) => void
  constructor() {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }
}

/** One batch: its lines, what each stands for, and who waits for it. */
class Batch {
  lines: string[] = []
  tags: unknown[] = []
  /** the tags of the durable lines, if any: they need the fsync */
  durable?: unknown[]
  /** waiters for the write (non-durable lines) */
  written?: Deferred
  /** waiters for the fsync (durable lines) */
  synced?: Deferred
}

export class LogWriter {
  private fd: number
  private batch = new Batch()
  private microtask = false
  private immediate = false
  private syncing?: Promise<void>
  private failure?: KernelError
  private closed = false

  /** `lost` receives the tags of lines that did not reach the file. */
  constructor(readonly path: string, private lost: (tags: unknown[]) => void = () => {}) {
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

  /** Why a write cannot be queued now, if it cannot. */
  refusal(): KernelError | undefined {
    if (this.closed) return new KernelError('SESSION_CLOSED', `session log ${this.path} is closed`)
    return this.failure
  }

  /**
   * Add `line` to the batch (check `refusal()` first); `tag` is what it stands
   * for, handed to `lost` if it never reaches the file. Then say when the batch
   * goes out: `writeNow()`, `soon()` or `later()`.
   */
  queue(line: string, tag: unknown, durable: boolean): void {
    const batch = this.batch
    batch.lines.push(line)
    batch.tags.push(tag)
    if (durable) (batch.durable ??= []).push(tag)
  }

  /** A promise for the current batch: written, or fsynced with `durable`. */
  waiter(durable: boolean): Promise<void> {
    const batch = this.batch
    return durable ? (batch.synced ??= new Deferred()).promise : (batch.written ??= new Deferred()).promise
  }

  /** Write the batch now, synchronously; throws the failure if the write fails (its waiters get it too). */
  writeNow(): void {
    this.flush()
    if (this.failure) throw this.failure
  }

  /** Write the batch at the end of the current microtask queue. */
  soon(): void {
    if (this.microtask) return
    this.microtask = true
    // a resolved promise's reaction: queueMicrotask would allocate an async resource per call
    RESOLVED.then(this.onMicrotask)
  }

  /** Write the batch with the next urgent write, or on the next turn of the event loop. */
  later(): void {
    if (this.microtask || this.immediate) return
    this.immediate = true
    setImmediate(this.onImmediate)
  }

  /** Resolves once everything queued so far is written, and every fsync it needs or that is under way is done. */
  drain(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    const batch = this.batch
    const waits: Array<Promise<void>> = []
    if (this.syncing) waits.push(this.syncing)
    if (batch.lines.length) {
      this.soon()
      waits.push((batch.written ??= new Deferred()).promise)
      if (batch.durable) waits.push((batch.synced ??= new Deferred()).promise)
    }
    return waits.length <= 1 ? waits[0] ?? Promise.resolve() : Promise.all(waits).then(() => {})
  }

  private onMicrotask = (): void => {
    this.microtask = false
    this.flush()
  }

  private onImmediate = (): void => {
    this.immediate = false
    // an urgent write already scheduled takes the deferred lines with it
    if (!this.microtask) this.flush()
  }

  private flush(): void {
    const batch = this.batch
    if (!batch.lines.length) return
    // a batch nobody waits on, with nothing to fsync, is not looked at again: its arrays are reused
    const reuse = !batch.written && !batch.synced && !batch.durable
    if (!reuse) this.batch = new Batch()
    // a log that already failed (an fsync, say) is not continued past its hole
    let failure = this.failure
    if (!failure) {
      try {
        this.writeAll(batch.lines.length === 1 ? batch.lines[0] : batch.lines.join(''))
      } catch (cause) {
        failure = new KernelError('SESSION_WRITE_FAILED', `cannot append to ${this.path}: ${(cause as Error).message}`, { cause })
      }
    }
    if (failure) this.fail(failure, batch, batch.tags.slice())
    else {
      batch.written?.resolve()
      if (batch.durable) this.sync(batch)
    }
    if (reuse) {
      batch.lines.length = 0
      batch.tags.length = 0
    }
  }

  private sync(batch: Batch): void {
    const previous = this.syncing
    const done = new Promise<void>((resolve) => {
      fsync(this.fd, (error) => {
        if (this.syncing === done) this.syncing = undefined
        resolve()
        if (!error) return batch.synced?.resolve()
        // the lines are in the page cache but not on disk: the durable ones are lost, and the log with them
        this.fail(new KernelError('SESSION_WRITE_FAILED', `cannot fsync ${this.path}: ${error.message}`, { cause: error }), batch, batch.durable!)
      })
    })
    this.syncing = previous ? Promise.all([previous, done]).then(() => {}) : done
  }

  private fail(failure: KernelError, batch: Batch, lost: unknown[]): void {
    this.failure ??= failure
    batch.written?.reject(failure)
    batch.synced?.reject(failure)
    // nobody may be waiting: the rejection is reported through `failed`
    batch.written?.promise.catch(() => {})
    batch.synced?.promise.catch(() => {})
    try {
      this.lost(lost)
    } catch {}
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
