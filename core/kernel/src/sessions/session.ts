/**
 * A session: an append-only event log in one JSONL file, its events in memory,
 * and the turn state that approval needs.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { KernelError } from '../errors.js'
import { isDurable, type SessionEvent, type SessionEvents, type SessionEventType } from './events.js'
import { LogWriter } from './log-writer.js'
import { recover, type Recovery } from './recover.js'
import { SessionWindow } from './window.js'

export { RECENT_BYTES, RECENT_EVENTS } from './window.js'

export interface SessionOptions {
  /** session id; a random UUID when absent. Letters, digits, `.`, `_` and `-` only. */
  id?: string
  /** the directory of the log file; default `<dataDir>/sessions` */
  dir?: string
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

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
  /** what `events()` holds: every durable event and the newest others */
  private window: SessionWindow
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
    this.window = new SessionWindow(this.recovery.events, this.recovery.lineBytes)
    this.seq = this.window.lastSeq
    this.writer = new LogWriter(this.path, (lost) => this.window.drop(lost))
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
    return this.enqueue(type, data)
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
   * Append an event whose write may wait for the next urgent append or the
   * next turn of the event loop (at most one turn), with no promise: nothing
   * waits for the line. It is in `events()` at once and in the file in order.
   * A failure to write it shows as `failure` and fails every later append; an
   * event that cannot be serialized throws `INVALID_EVENT` here. Durable
   * classes are never deferred.
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

  private enqueue<K extends SessionEventType>(type: K, data: SessionEvents[K]): Promise<SessionEvent<K>> {
    const refusal = this.writer.refusal()
    if (refusal) return Promise.reject(refusal)
    let line: string
    try {
      line = this.encode(type, data)
    } catch (error) {
      return Promise.reject(error)
    }
    const event: SessionEvent<K> = { seq: this.seq, time: this.time, type, data }
    const durable = isDurable(type)
    this.window.add(event, durable, durable ? 0 : Buffer.byteLength(line))
    if (this.observers) this.tell(event)
    this.writer.queue(line, event.seq, durable)
    const written = this.writer.waiter(durable)
    this.writer.soon()
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
    // by hand, as JSON.stringify(event) would; the seq through JSON.stringify to keep it out of V8's
    // number-to-string cache (decisions/2026-12-01-session-memory-window.md)
    return `{"seq":${JSON.stringify(seq)},"time":${time},"type":${quoted(type)},"data":${json}}\n`
  }

  /**
   * List the just-encoded event, and return the writer's tag for it (its `seq`). A durable event is
   * kept as the event: if its fsync fails later it must still be found to be dropped.
   */
  private keep(type: SessionEventType, data: unknown, line: string, durable: boolean): number {
    const seq = this.seq
    if (this.observers) this.tell({ seq, time: this.time, type, data } as SessionEvent)
    if (durable) this.window.add({ seq, time: this.time, type, data } as SessionEvent, true, 0)
    else this.window.addLine(seq, line)
    return seq
  }

  /**
   * The events of this session held in memory, in order: every durable event and the newest
   * `RECENT_EVENTS` others, at most `RECENT_BYTES` of them (the log file holds them all). Positions
   * move when older events go; read by `seq`. The in-memory list: do not mutate.
   */
  events(): readonly SessionEvent[] {
    return this.window.events()
  }

  /**
   * At least the `seq` of the newest durable event in `events()` (it moves with every durable event,
   * with `append()`'s others, and when events are dropped), read without `events()`, which parses
   * every line the hot path wrote since its last read: a reader that looks for durable events alone
   * (sandbox modes) and has read up to this seq has nothing new to read.
   */
  get lastDurableSeq(): number {
    return this.window.lastObjectSeq
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
