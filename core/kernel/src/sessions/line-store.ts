/**
 * The lines of a session's hot-path events, kept off the JavaScript heap until
 * `events()` asks for them. Each line is copied as UTF-8 into large buffers and
 * named by a small integer; the garbage collector never traces or copies any
 * of it (kept as strings, the lines of a long session were about an eighth of
 * the cost of a call, in collector time).
 */

const CHUNK_BYTES = 1 << 20

export class LineStore {
  private chunks: Buffer[] = []
  private used = 0
  /** ids below this are no longer held */
  private base = 0
  private next = 0
  /** per id from `base`: chunk, start and end of its line (ids without a line leave a gap) */
  private where = new Int32Array(3 * 1024)

  /** `first`: the smallest id it will hold (ids below it take no room) */
  constructor(first = 0) {
    this.base = this.next = first
  }

  /** Keep `line` under `id` (the event's `seq`): ids only grow. */
  add(id: number, line: string): void {
    if (id < this.next) throw new RangeError(`line ids only grow: ${id} after ${this.next - 1}`)
    let chunk = this.chunks[this.chunks.length - 1]
    // a UTF-16 unit is at most 3 UTF-8 bytes: only a line that may not fit is measured
    if (!chunk || this.used + 3 * line.length > chunk.length) {
      const bytes = Buffer.byteLength(line)
      if (!chunk || this.used + bytes > chunk.length) {
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes))
        this.chunks.push(chunk)
        this.used = 0
      }
    }
    const bytes = chunk.write(line, this.used, 'utf8')
    const slot = 3 * (id - this.base)
    if (slot + 3 > this.where.length) {
      const grown = new Int32Array(Math.max(this.where.length * 2, slot + 3))
      grown.set(this.where)
      this.where = grown
    }
    this.where[slot] = this.chunks.length - 1
    this.where[slot + 1] = this.used
    this.where[slot + 2] = this.used + bytes
    this.used += bytes
    this.next = id + 1
  }

  /** The text of line `id` (held: between the last `clear()` and now). */
  text(id: number): string {
    const slot = 3 * (id - this.base)
    if (id < this.base || id >= this.next) throw new RangeError(`line ${id} is not held`)
    return this.chunks[this.where[slot]].toString('utf8', this.where[slot + 1], this.where[slot + 2])
  }

  /** Let every held line go (their events were parsed); ids keep growing, and the last chunk's room is reused. */
  clear(): void {
    const last = this.chunks[this.chunks.length - 1]
    this.chunks = last ? [last] : []
    this.base = this.next
    this.where = this.where.length > 3 * 1024 ? new Int32Array(3 * 1024) : this.where.fill(0)
  }
}
