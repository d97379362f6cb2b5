/**
 * The events a session holds in memory: every durable one and the newest others, bounded by
 * count and by bytes. The log file holds them all (decisions/2026-12-01-session-memory-window.md).
 */
import { isDurable, type SessionEvent } from './events.js'
import { LineStore, LARGE_LINE_BYTES } from './line-store.js'

/**
 * How many of the newest non-durable events `events()` holds. Older ones are in
 * the log file only (`dsh sessions show` reads them there): a long session's
 * memory stays bounded. Durable events (approval decisions, sandbox modes) are
 * all held, whatever their age — grants and modes are rebuilt from them.
 */
export const RECENT_EVENTS = 10_000

// a quarter more, not twice as many: cut to half, V8 shrinks the list's backing store (the note's third round)
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

export class SessionWindow {
  /**
   * The events held, in order (trimmed in place, so the recovered list given to the constructor
   * stays this list). Hot-path events are kept as their `seq`, their line held in `lines` (off the
   * heap), until `events()` is first called after them: the collector has nothing per event to
   * trace or copy.
   */
  private list: Array<SessionEvent | number>
  private lines = new LineStore()
  /** index of the first entry still kept as a line id, or -1 */
  private unparsed = -1
  /** how many non-durable events the list holds */
  private others: number
  /** per entry of `list`, the bytes of its line (0 for a durable event: those are all kept) */
  private sizes: number[]
  /** the bytes of the non-durable events the list holds */
  private held: number
  /** the newest seq listed */
  private last: number
  /** the newest seq listed as an object (every durable event is), or changed by a drop */
  private lastObject: number

  /** `events`: what the log file held (kept as the list); `lineBytes`: each one's line, in bytes */
  constructor(events: SessionEvent[], lineBytes: readonly number[]) {
    this.list = events
    this.last = events.reduce((max, event) => Math.max(max, event.seq), 0)
    this.lastObject = this.last
    this.sizes = events.map((event, i) => (isDurable(event.type) ? 0 : lineBytes[i]))
    this.others = events.reduce((n, event) => n + (isDurable(event.type) ? 0 : 1), 0)
    this.held = this.sizes.reduce((n, size) => n + size, 0)
    if (this.others > RECENT_EVENTS || this.held > RECENT_BYTES) this.trim()
  }

  /** the newest seq the window has listed, or the log's on reopening */
  get lastSeq(): number {
    return this.last
  }

  /**
   * The newest seq listed as an object — every durable event is, and `append()`'s others — or the
   * newest seq when events were dropped: a reader of durable events alone (sandbox modes) has
   * nothing new to read while this is not past the seq it read up to.
   */
  get lastObjectSeq(): number {
    return this.lastObject
  }

  /** List an event as an object; `bytes` is its line's size (ignored for a durable event: all are kept). */
  add(event: SessionEvent, durable: boolean, bytes: number): void {
    this.list.push(event)
    this.last = event.seq
    this.lastObject = event.seq
    if (durable) this.sizes.push(0)
    else this.hold(bytes)
  }

  /** List a non-durable event as its line, parsed when `events()` is next read. */
  addLine(seq: number, line: string): void {
    if (this.unparsed < 0) this.unparsed = this.list.length
    this.list.push(seq)
    this.last = seq
    // the size comes with the copy into the line store: nothing is measured twice
    this.hold(this.lines.add(seq, line))
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
    this.lines.dropBelow(this.unparsed < 0 ? this.last + 1 : (list[this.unparsed] as number))
  }

  /** Drop events whose lines did not reach the file (by `seq`): they are not part of the session. */
  drop(lost: unknown[]): void {
    const gone = new Set(lost)
    // Why: what a durable reader read may be gone; it reads again
    this.lastObject = this.last
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

  /** The events held, in order; lines listed since the last read are parsed now. Do not mutate. */
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
}
