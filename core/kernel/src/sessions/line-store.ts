/** The lines of a session's hot-path events kept off the JavaScript heap, reused in place as the window moves, since the collector traced them at an eighth of a call's cost (docs/decisions/2026-12-01-session-memory-window.md). */

/**
 * A quarter megabyte: a window of 12,500 lines of a few hundred bytes fills about ten, and what a
 * window holds beyond its lines (the last buffer's free room, the first's dropped lines, the
 * spares) stays about a megabyte (with 1 MB buffers it was up to 4 MB, all of it resident).
 */
const CHUNK_BYTES = 1 << 18
/** buffers kept for reuse beyond the ones in use: 2 MB, as many bytes as before */
const SPARE_CHUNKS = 8
const INITIAL_SLOTS = 3 * 1024
/**
 * A line longer than this (in UTF-8 bytes) is kept as its string, apart from the buffers: copying it
 * would be one more allocation of its size, and one string is nothing for the collector to trace.
 * Such a line can go out of turn (`release`), wherever it is.
 */
export const LARGE_LINE_BYTES = CHUNK_BYTES
/** in `where`, the chunk of a line kept as its string (`large`) */
const LARGE = -1

export class LineStore {
  private chunks: Buffer[] = []
  private spare: Buffer[] = []
  private used = 0
  /** ids below this are no longer held */
  private base = 0
  private next = 0
  /** per id from `base`: chunk, start and end of its line (ids without a line leave a gap: end 0) */
  private where = new Int32Array(INITIAL_SLOTS)
  /** the lines over `LARGE_LINE_BYTES`, by id */
  private large = new Map<number, string>()

  /** `first`: the smallest id it will hold (ids below it take no room) */
  constructor(first = 0) {
    this.base = this.next = first
  }

  /** Keep `line` under `id` (the event's `seq`): ids only grow. Returns the line's size in UTF-8 bytes. */
  add(id: number, line: string): number {
    if (id < this.next) throw new RangeError(`line ids only grow: ${id} after ${this.next - 1}`)
    let chunk = this.chunks[this.chunks.length - 1]
    // a UTF-16 unit is at most 3 UTF-8 bytes: only a line that may not fit is measured
    if (!chunk || this.used + 3 * line.length > chunk.length) {
      const bytes = Buffer.byteLength(line)
      if (bytes > LARGE_LINE_BYTES) {
        this.slot(id, LARGE, 0, bytes)
        this.large.set(id, line)
        return bytes
      }
      if (!chunk || this.used + bytes > chunk.length) {
        chunk = this.spare.pop() || Buffer.allocUnsafe(CHUNK_BYTES)
        this.chunks.push(chunk)
        this.used = 0
      }
    }
    const bytes = chunk.write(line, this.used, 'utf8')
    this.slot(id, this.chunks.length - 1, this.used, this.used + bytes)
    this.used += bytes
    return bytes
  }

  private slot(id: number, chunk: number, start: number, end: number): void {
    const slot = 3 * (id - this.base)
    if (slot + 3 > this.where.length) {
      const grown = new Int32Array(Math.max(this.where.length * 2, slot + 3))
      grown.set(this.where)
      this.where = grown
    }
    this.where[slot] = chunk
    this.where[slot + 1] = start
    this.where[slot + 2] = end
    this.next = id + 1
  }

  /**
   * Let line `id` go now, out of turn, if it is kept as its string (over `LARGE_LINE_BYTES`): the id
   * is no longer held. A shorter line shares its buffer and goes with the lines around it
   * (`dropBelow`); nothing is done for it here.
   */
  release(id: number): void {
    const slot = 3 * (id - this.base)
    if (id < this.base || id >= this.next || this.where[slot] !== LARGE || this.where[slot + 2] === 0) return
    this.large.delete(id)
    this.where[slot + 2] = 0
  }

  /** The text of line `id` (held: at or above the last `dropBelow`, and added). */
  text(id: number): string {
    const slot = 3 * (id - this.base)
    if (id < this.base || id >= this.next || this.where[slot + 2] === 0) throw new RangeError(`line ${id} is not held`)
    if (this.where[slot] === LARGE) return this.large.get(id)!
    return this.chunks[this.where[slot]].toString('utf8', this.where[slot + 1], this.where[slot + 2])
  }

  /**
   * Let the lines below `first` go, in place: the index moves down, and the buffers holding only
   * lines that went are kept for reuse (up to `SPARE_CHUNKS`; the rest are let go).
   */
  dropBelow(first: number): void {
    if (first <= this.base) return
    const from = Math.min(first, this.next)
    // the chunk of the first line still held: every chunk before it holds only lines that go
    let keepFrom = this.chunks.length - 1
    for (let id = from; id < this.next; id++) {
      const slot = 3 * (id - this.base)
      if (this.where[slot + 2] !== 0 && this.where[slot] !== LARGE) {
        keepFrom = this.where[slot]
        break
      }
    }
    if (keepFrom > 0) {
      for (const chunk of this.chunks.splice(0, keepFrom)) if (this.spare.length < SPARE_CHUNKS) this.spare.push(chunk)
    }
    const start = 3 * (from - this.base)
    const end = 3 * (this.next - this.base)
    this.where.copyWithin(0, start, end)
    this.where.fill(0, end - start, end)
    if (keepFrom > 0) {
      for (let slot = 0; slot < end - start; slot += 3) if (this.where[slot + 2] !== 0 && this.where[slot] !== LARGE) this.where[slot] -= keepFrom
    }
    if (this.large.size) for (const id of this.large.keys()) if (id < from) this.large.delete(id)
    this.base = from
    if (first > this.next) this.base = this.next = first
  }

  /** Let every held line go (their events were parsed); ids keep growing, and the buffers are reused. */
  clear(): void {
    this.dropBelow(this.next)
  }
}
