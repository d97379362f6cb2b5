/**
 * Output capture with a cap: the first `max` bytes of a stream are kept, the
 * rest is counted and dropped (the stream is still drained, so the process
 * never blocks on a full pipe).
 */
import type { Readable } from 'node:stream'

export class OutputCapture {
  private chunks: Buffer[] = []
  private kept = 0
  dropped = 0
  /** everything the stream gave, kept or not: bytes and line ends */
  bytes = 0
  lines = 0

  constructor(readonly max: number) {}

  /** Calls `overflow` once, on the chunk that first goes past the cap. */
  attach(stream: Readable | null | undefined, overflow?: () => void): void {
    stream?.on('data', (chunk: Buffer) => {
      const before = this.bytes
      this.add(chunk)
      if (overflow && before <= this.max && this.bytes > this.max) overflow()
    })
  }

  private add(chunk: Buffer): void {
    this.bytes += chunk.length
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.lines++
    const room = this.max - this.kept
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk
      this.chunks.push(part)
      this.kept += part.length
    }
    this.dropped += Math.max(0, chunk.length - Math.max(room, 0))
  }

  /** The kept bytes as text, without a note about the dropped ones. */
  keptText(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }

  /** The kept bytes, then how many more were dropped. */
  text(): string {
    const text = this.keptText()
    return this.dropped ? `${text}\n[${this.dropped} more bytes dropped]` : text
  }
}
