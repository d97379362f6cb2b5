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
  /** everything the stream gave, kept or not: bytes and line ends */
  bytes = 0
  lines = 0

  constructor(private readonly max: number) {}

  attach(stream: Readable | null | undefined): void {
    stream?.on('data', (chunk: Buffer) => this.add(chunk))
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

  /** What has come so far, for a progress line. */
  static describe(stdout: CappedOutput, stderr: CappedOutput): string {
    const bytes = stdout.bytes + stderr.bytes
    const lines = stdout.lines + stderr.lines
    return `${bytes} byte${bytes === 1 ? '' : 's'}, ${lines} line${lines === 1 ? '' : 's'} of output so far`
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8')
    return this.dropped ? `${text}\n[${this.dropped} more bytes dropped]` : text
  }
}
