/**
 * The last bytes a server wrote to stderr, kept for the errors its calls end
 * with. Bounded whatever the server writes.
 */
export class StderrTail {
  private chunks: Buffer[] = []
  private size = 0

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size > this.limit && this.chunks.length > 1) this.size -= this.chunks.shift()!.length
    if (this.size > this.limit) {
      const only = this.chunks[0]!
      this.chunks[0] = only.subarray(only.length - this.limit)
      this.size = this.limit
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8').trim()
  }

  clear(): void {
    this.chunks = []
    this.size = 0
  }
}

/** `\n[stderr of <server>, last lines]\n…` for an error message, or nothing. */
export function stderrNote(server: string, tail: string): string {
  return tail ? `\n[stderr of ${server}, last ${Buffer.byteLength(tail)} bytes]\n${tail}` : ''
}
