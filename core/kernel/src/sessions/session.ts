/**
 * A session: an append-only event log in one JSONL file, its events in memory,
 * and the turn state that approval needs.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { KernelError } from '../errors.js'
import { isDurable, type SessionEvent, type SessionEvents, type SessionEventType } from './events.js'
import { LineStore, LARGE_LINE_BYTES } from './line-store.js'
import { LogWriter } from './log-writer.js'
import { recover, type Recovery } from './recover.js'

export interface SessionOptions {
  /** session id; a random UUID when absent. Letters, digits, `.`, `_` and `-` only. */
  id?: string
  /** the directory of the log file; default `<dataDir>/sessions` */
  dir?: string
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/**
 * How many of the newest non-durable events `events()` holds. Older ones are in
 * the log file only (`dsh sessions show` reads them there): a long session's
 * memory stays bounded. Durable events (approval decisions, sandbox modes) are
 * all held, whatever their age — grants and modes are rebuilt from them.
 */
export const RECENT_EVENTS = 10_000

/**
 * The window is trimmed back to `RECENT_EVENTS` others once this many are held. A quarter more,
 * not twice as many: cut from twice its length to half, V8 shrinks the list's backing store, and
 * growing it back copied the list into two new arrays (120 and 180 KB) every trim, which survived
 * young collections and grew V8's young generation. Cut by a fifth, the store keeps its size.
 */
const TRIM_AT = RECENT_EVENTS + RECENT_EVENTS / 4

/**
 * How many bytes of non-durable events (their log lines, UTF-8) `events()` holds at most, whatever
 * their count: ten thousand results of a megabyte each would otherwise all be held. Lines over
 * `LARGE_LINE_BYTES` (256 KiB, held as strings) go first, oldest first, wherever they are in the
 * window (the small events readers search back through stay); then the oldest others. Like the
 * count, trimmed once a quarter more is held (20 MiB), back to this.
 */
export const RECENT_BYTES = 16 * 1024 * 1024

const TRIM_BYTES = RECENT_BYTES + RECENT_BYTES / 4
/** marks an entry the byte trim let go, in `sizes` */
const GONE = -1

// event types are few: their JSON form is kept rather than rebuilt per line
const QUOTED = new Map<string, string>()

function quoted(type: string): string {
  let text = QUOTED.get(type)
  if (text === undefined) {
    text = JSON.stringify(type)
    if (QUOTED.size < 1024) QUOTED.set(type, text)
  }
  return text
}

export class Session {
  readonly id: string
  readonly path: string
  /** what reopening found: a torn last line cut off, unparsable lines skipped */
  readonly recovery: Recovery
  /**
   * The events held, in order: every durable one and the newest
   * `RECENT_EVENTS` others (trimmed once `TRIM_AT` are held, in place, so
   * `recovery.events` stays this list). Events from the hot path (`write`, `post`) are kept
   * as their `seq`, their line held in `lines` (off the heap), until `events()`
   * is first called after them: the collector then has nothing per event to
   * trace or copy, where the event would be a tree of objects kept for the
   * whole session. The writer's tag for every line is its `seq`.
   */
  private list: Array<SessionEvent | number>
  private lines = new LineStore()
  /** index of the first entry still kept as a line id, or -1 */
  private unparsed = -1
  /** how many non-durable events the list holds */
  private others = 0
  /** per entry of `list`, the bytes of its line (0 for a durable event: those are all kept) */
  private sizes: number[]
  /** the bytes of the non-durable events the list holds */
  private held = 0
  private seq: number
  private time = 0
  private writer: LogWriter
  private turn = 0
  private open = false
  private closeListeners = new Set<() => void>()
  /** who is told of each event appended from now on (undefined while nobody is: the hot path checks one field) */
  private observers?: Set<(event: SessionEvent) => void>

  constructor(defaultDir: string, options: SessionOptions = {}) {
    const id = options.id ?? randomUUID()
    if (typeof id !== 'string' || !ID.test(id)) {
      throw new KernelError('INVALID_CONFIG', `session id ${JSON.stringify(id)} must match ${ID}`)
    }
    const dir = resolve(options.dir ?? defaultDir)
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    this.id = id
    this.path = join(dir, `${id}.jsonl`)
    this.recovery = recover(this.path)
    this.list = this.recovery.events
    this.seq = this.recovery.events.reduce((max, event) => Math.max(max, event.seq), 0)
    this.sizes = this.recovery.events.map((event, i) => (isDurable(event.type) ? 0 : this.recovery.lineBytes[i]))
    this.others = this.list.reduce<number>((n, event) => n + (isDurable((event as SessionEvent).type) ? 0 : 1), 0)
    this.held = this.sizes.reduce((n, size) => n + size, 0)
    if (this.others > RECENT_EVENTS || this.held > RECENT_BYTES) this.trim()
    this.writer = new LogWriter(this.path, (lost) => this.drop(lost))
    if (this.recovery.reason) {
      // reported in the log itself, never fatal
      this.append('session/recovered', {
        droppedBytes: this.recovery.droppedBytes,
        reason: this.recovery.reason,
        badLines: this.recovery.badLines,
      }).catch(() => {})
    }
  }

  /**
   * Append a typed event. Resolves with the event once its line is written
   * (fsynced for approval and sandbox-mode events); rejects with
   * `INVALID_EVENT` when `data` cannot be serialized, `SESSION_WRITE_FAILED`
   * when the file cannot be written.
   */
  append<K extends SessionEventType>(type: K, data: SessionEvents[K]): Promise<SessionEvent<K>> {
    return this.enqueue(type, data, false)
  }

  /**
   * Append an event whose write may wait for the next urgent append or the
   * next turn of the event loop (at most one turn). It is in `events()` at
   * once and in the file in order; the promise resolves once it is written.
   * Durable classes are never deferred.
   */
  appendLater<K extends SessionEventType>(type: K, data: SessionEvents[K]): Promise<SessionEvent<K>> {
    return this.enqueue(type, data, true)
  }

  /**
   * `append` for the hot path, synchronous: the line — with every line queued
   * before it — is in the file when `write` returns. Throws `INVALID_EVENT`
   * when `data` cannot be serialized (nothing is written then), and the write
   * failure (`SESSION_WRITE_FAILED`, `SESSION_CLOSED`) otherwise. Durable
   * classes are fsynced in the background, as for every batch.
   */
  write<K extends SessionEventType>(type: K, data: SessionEvents[K]): void {
    const refusal = this.writer.refusal()
    if (refusal) throw refusal
    const line = this.encode(type, data)
    const durable = isDurable(type)
    this.writer.queue(line, this.keep(type, data, line, durable), durable)
    this.writer.writeNow()
  }

  /**
   * `appendLater` without a promise: nothing waits for the line. A failure to
   * write it shows as `failure` and fails every later append; an event that
   * cannot be serialized throws `INVALID_EVENT` here.
   */
  post<K extends SessionEventType>(type: K, data: SessionEvents[K]): void {
    const refusal = this.writer.refusal()
    if (refusal) throw refusal
    const line = this.encode(type, data)
    if (isDurable(type)) {
      // a durable event is never deferred; its fsync failure still fails the log
      this.writer.queue(line, this.keep(type, data, line, true), true)
      this.writer.waiter(true).catch(() => {})
      this.writer.soon()
    } else {
      this.writer.queue(line, this.keep(type, data, line, false), false)
      this.writer.later()
    }
  }

  /** Resolves once every event appended so far is written. */
  flush(): Promise<void> {
    return this.writer.drain()
  }

  private enqueue<K extends SessionEventType>(type: K, data: SessionEvents[K], later: boolean): Promise<SessionEvent<K>> {
    const refusal = this.writer.refusal()
    if (refusal) return Promise.reject(refusal)
    let line: string
    try {
      line = this.encode(type, data)
    } catch (error) {
      return Promise.reject(error)
    }
    const event: SessionEvent<K> = { seq: this.seq, time: this.time, type, data }
    this.list.push(event)
    if (this.observers) this.tell(event)
    const durable = isDurable(type)
    if (durable) this.sizes.push(0)
    else this.hold(Buffer.byteLength(line))
    this.writer.queue(line, event.seq, durable)
    const written = this.writer.waiter(durable)
    if (later && !durable) this.writer.later()
    else this.writer.soon()
    return written.then(() => event)
  }

  /** The event's line; numbers the event (`seq`, `time`). Throws `INVALID_EVENT`, numbering nothing. */
  private encode(type: SessionEventType, data: unknown): string {
    let json: string | undefined
    try {
      json = JSON.stringify(data)
    } catch (cause) {
      throw new KernelError('INVALID_EVENT', `event ${type} cannot be serialized: ${(cause as Error).message}`, { cause })
    }
    if (typeof json !== 'string') throw new KernelError('INVALID_EVENT', `event ${type} has no JSON data (got ${typeof data})`)
    const seq = ++this.seq
    const time = (this.time = Date.now())
    // the envelope by hand: the same text JSON.stringify(event) gives, without walking it again.
    // The seq goes through JSON.stringify, not the template: a number a template turns into a
    // string stays in V8's number-to-string cache until another number takes its slot, so every
    // seq's string outlived young collections (a new one each event; the time repeats within a ms)
    return `{"seq":${JSON.stringify(seq)},"time":${time},"type":${quoted(type)},"data":${json}}\n`
  }

  /**
   * Add the just-encoded event to the list, and return what stands for it there
   * (the writer's tag). A durable event is kept as the event: if its fsync fails
   * later it must still be found to be dropped, whatever `events()` did meanwhile.
   */
  private keep(type: SessionEventType, data: unknown, line: string, durable: boolean): number {
    const seq = this.seq
    if (this.observers) this.tell({ seq, time: this.time, type, data } as SessionEvent)
    if (durable) {
      this.list.push({ seq, time: this.time, type, data } as SessionEvent)
      this.sizes.push(0)
      return seq
    }
    if (this.unparsed < 0) this.unparsed = this.list.length
    this.list.push(seq)
    // the size comes with the copy into the line store: nothing is measured twice
    this.hold(this.lines.add(seq, line))
    return seq
  }

  /** Count a non-durable event just listed, of `bytes`; trim once the window holds too many or too much. */
  private hold(bytes: number): void {
    this.sizes.push(bytes)
    this.held += bytes
    if (++this.others > TRIM_AT || this.held > TRIM_BYTES) this.trim()
  }

  /**
   * Keep every durable event and the newest `RECENT_EVENTS` others, at most `RECENT_BYTES` of them,
   * in place; the line store lets the lines of the dropped entries go in place too (its buffers are
   * reused), so a full window allocates nothing more. Over the bytes, the oldest lines over
   * `LARGE_LINE_BYTES` go first (the line store lets each go at once), then the oldest others.
   * Amortised: it runs once per `TRIM_AT - RECENT_EVENTS` events or `TRIM_BYTES - RECENT_BYTES` bytes.
   */
  private trim(): void {
    const list = this.list
    const sizes = this.sizes
    let drop = this.others - RECENT_EVENTS
    let over = this.held - RECENT_BYTES
    // durable entries have size 0: only others are marked
    for (let i = 0; over > 0 && i < list.length; i++) {
      const size = sizes[i]
      if (size <= LARGE_LINE_BYTES) continue
      const entry = list[i]
      if (typeof entry === 'number') this.lines.release(entry)
      sizes[i] = GONE
      over -= size
      drop--
      this.held -= size
      this.others--
    }
    let kept = 0
    this.unparsed = -1
    for (let i = 0; i < list.length; i++) {
      const entry = list[i]
      const size = sizes[i]
      if (size === GONE) continue
      const isLine = typeof entry === 'number'
      if ((drop > 0 || over > 0) && (isLine || !isDurable(entry.type))) {
        drop--
        over -= size
        this.held -= size
        this.others--
        continue
      }
      if (isLine && this.unparsed < 0) this.unparsed = kept
      sizes[kept] = size
      list[kept++] = entry
    }
    list.length = kept
    sizes.length = kept
    // lines are kept from the oldest one still listed (ids grow along the list)
    this.lines.dropBelow(this.unparsed < 0 ? this.seq + 1 : (list[this.unparsed] as number))
  }

  /** Drop events whose lines did not reach the file (by `seq`): they are not part of the session. */
  private drop(lost: unknown[]): void {
    const gone = new Set(lost)
    let kept = 0
    this.unparsed = -1
    for (let i = 0; i < this.list.length; i++) {
      const entry = this.list[i]
      const size = this.sizes[i]
      const isLine = typeof entry === 'number'
      if (gone.has(isLine ? entry : entry.seq)) {
        if (isLine || !isDurable(entry.type)) {
          this.others--
          this.held -= size
        }
        continue
      }
      if (isLine && this.unparsed < 0) this.unparsed = kept
      this.sizes[kept] = size
      this.list[kept++] = entry
    }
    this.list.length = kept
    this.sizes.length = kept
  }

  /**
   * The events of this session held in memory, in order: every durable event and the newest
   * `RECENT_EVENTS` others (the log file holds them all). Positions move when older events
   * go; read by `seq`. The in-memory list: do not mutate.
   */
  events(): readonly SessionEvent[] {
    const list = this.list
    if (this.unparsed >= 0) {
      // each line parses to exactly the event it was written as: it is what the file holds
      for (let i = this.unparsed; i < list.length; i++) {
        const entry = list[i]
        if (typeof entry === 'number') list[i] = JSON.parse(this.lines.text(entry))
      }
      this.unparsed = -1
      this.lines.clear()
    }
    return list as SessionEvent[]
  }

  get inTurn(): boolean {
    return this.open
  }

  /** Open a turn (synchronous; the `turn/begin` event is written in the background). */
  beginTurn(): void {
    if (this.open) return
    this.open = true
    this.append('turn/begin', { turn: ++this.turn }).catch(() => {})
  }

  endTurn(): void {
    if (!this.open) return
    this.open = false
    this.append('turn/end', { turn: this.turn }).catch(() => {})
  }

  /** Set when a write failed: every later append rejects with it. */
  get failure(): KernelError | undefined {
    return this.writer.failed
  }

  /**
   * Be told of every event appended from now on, synchronously as it is
   * numbered (before its line is written; an event whose write later fails
   * was still told). The listener must not mutate the event; a listener that
   * throws is ignored. Returns the disposer.
   */
  observe(listener: (event: SessionEvent) => void): () => void {
    ;(this.observers ??= new Set()).add(listener)
    return () => {
      this.observers?.delete(listener)
      if (this.observers?.size === 0) this.observers = undefined
    }
  }

  private tell(event: SessionEvent): void {
    for (const listener of this.observers!) {
      try {
        listener(event)
      } catch {}
    }
  }

  /** Called once when the session closes (used to drop per-session state). */
  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener)
    return () => this.closeListeners.delete(listener)
  }

  close(): void {
    this.writer.close()
    for (const listener of this.closeListeners) {
      try {
        listener()
      } catch {}
    }
    this.closeListeners.clear()
    this.observers = undefined
  }
}
