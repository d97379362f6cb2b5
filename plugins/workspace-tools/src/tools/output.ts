/**
 * Output capture with a cap: the first `max` bytes of a stream are kept, the
 * rest is counted and dropped (the stream is still drained, so the command
 * never blocks on a full pipe).
 */
import type { Readable } from 'node:stream'

export class CappedOutput {
  private chunks: Buffer[] = []
  private kept = 0
  dropped = 0

  constructor(private readonly max: number) {}

  attach(stream: Readable | null | undefined): void {
    stream?.on('data', (chunk: Buffer) => this.add(chunk))
  }

  private add(chunk: Buffer): void {
    const room = this.max - this.kept
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk
      this.chunks.push(part)
      this.kept += part.length
    }
    this.dropped += Math.max(0, chunk.length - Math.max(room, 0))
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8')
    return this.dropped ? `${text}\n[${this.dropped} more bytes dropped]` : text
  }
}
