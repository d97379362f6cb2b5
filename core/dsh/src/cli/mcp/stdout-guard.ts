/**
 * Under `dsh mcp`, stdout is the protocol: one stray line — a plugin's
 * `console.log`, a logger's warning — would corrupt the stream the client
 * parses. `claimStdout()` sends everything else written to `process.stdout`
 * to stderr and hands back the one writer the transport uses.
 */
import { Writable } from 'node:stream'

export interface ClaimedStdout {
  /** the only writer that still reaches the real stdout */
  readonly stream: Writable
  /** bytes written to `stream` and not yet flushed to the real stdout */
  buffered(): number
  /** give stdout back (after the server is closed) */
  release(): void
}

export function claimStdout(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): ClaimedStdout {
  const original = stdout.write
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      (original as (chunk: Buffer, done: (error?: Error | null) => void) => boolean).call(stdout, chunk, (error) => callback(error ?? null))
    },
  })
  // the transport waits for 'drain' once per message sent while the buffer is full: many calls finishing together are normal
  stream.setMaxListeners(0)
  // console.log and loggers hold a reference to this object and call its write method
  const redirect = function (this: unknown, ...args: unknown[]) {
    return (stderr.write as (...a: unknown[]) => boolean)(...args)
  }
  stdout.write = redirect as typeof stdout.write
  let released = false
  return {
    stream,
    // the chunk being written is counted by both streams: an overcount of one chunk, never an undercount
    buffered: () => stream.writableLength + stdout.writableLength,
    release() {
      if (released) return
      released = true
      if (stdout.write === redirect) stdout.write = original
    },
  }
}
