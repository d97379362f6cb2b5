/** The stdio transport `dsh mcp` serves on, in place of the SDK's, since that one closes the connection on one long line and drops refused lines unanswered (framing and flow control: docs/architecture.md, MCP server). */
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { asParamsError, checkLine, type Refusal, type RequestId } from './envelope.js'
import { IdScanner } from './id-scan.js'
import type { McpServerLimits } from './limits.js'

/** `maxMessageBytes` (its newline not counted) and `maxBytesInFlight` */
export type StdioLimits = Pick<McpServerLimits, 'maxMessageBytes' | 'maxBytesInFlight'>

export interface StdioTransportOptions extends StdioLimits {
  /** bytes written but not yet flushed to the client (default: `stdout.writableLength`) */
  buffered?(): number
  /** one line about a message refused or dropped (rate-limited by the caller) */
  report?(line: string): void
}

const NEWLINE = 0x0a

export class DshStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private started = false
  private closed = false
  /** the chunks of the line being read */
  private partial: Buffer[] = []
  private partialBytes = 0
  /** the line being read is over the cap: only its id is looked for */
  private oversized: { scanner: IdScanner; bytes: number } | undefined
  /** bytes of each request read and not yet answered, by id */
  private pending = new Map<string, number>()
  private pendingBytes = 0
  /** what waits for a request to be answered (or cancelled), by id */
  private onAnswer = new Map<string, Array<() => void>>()
  private paused = false
  /** calls waiting for the bytes in flight to fall under the cap */
  private admissions: Array<() => void> = []

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly options: StdioTransportOptions,
  ) {}

  /** The bytes in flight now (requests unanswered + answers unflushed). */
  inFlight(): number {
    return this.pendingBytes + this.buffered()
  }

  /**
   * Resolves once the bytes in flight are under the cap (at once if they are), or when `signal`
   * fires: a tool call waits here before it starts, so a client that does not read its answers
   * stalls its own calls instead of piling their results up in the server.
   */
  admit(signal: AbortSignal): Promise<void> | undefined {
    if (this.closed || signal.aborted || this.inFlight() <= this.options.maxBytesInFlight) return undefined
    return new Promise<void>((resolve) => {
      const ready = () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => {
        const i = this.admissions.indexOf(ready)
        if (i !== -1) this.admissions.splice(i, 1)
        resolve()
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.admissions.push(ready)
    })
  }

  /**
   * Run `done` once the request `id` is answered (its answer handed to stdout, so counted in
   * flight), cancelled, or the connection closed — at once if it is not waiting for an answer.
   */
  afterAnswer(id: RequestId, done: () => void): void {
    const key = keyOf(id)
    if (this.closed || !this.pending.has(key)) return done()
    const list = this.onAnswer.get(key)
    if (list) list.push(done)
    else this.onAnswer.set(key, [done])
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('DshStdioTransport already started')
    this.started = true
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onError)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onError)
    if (!this.stdin.listenerCount('data')) this.stdin.pause()
    this.partial = []
    this.oversized = undefined
    this.pending.clear()
    this.pendingBytes = 0
    for (const admit of this.admissions.splice(0)) admit()
    const waiting = [...this.onAnswer.values()].flat()
    this.onAnswer.clear()
    for (const done of waiting) done()
    this.onclose?.()
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the MCP connection is closed'))
    if (!('method' in message) && 'id' in message && message.id !== undefined) {
      this.answered(message.id)
      if ('error' in message) message = asParamsError(message)
    }
    return this.write(JSON.stringify(message) + '\n')
  }

  private write(text: string): Promise<void> {
    // `text` is used here only, never in a closure: the callback below lives as long as the write
    // is buffered, and a closure over `text` kept each answer twice until then (the string and the
    // stream's copy of it as bytes)
    const flush = this.flushing()
    this.stdout.write(text, flush.callback)
    // over the cap: the sender waits for its bytes to leave; under it, it goes on at once
    if (this.inFlight() > this.options.maxBytesInFlight) flush.waiting = true
    else flush.resolve()
    this.flow()
    return flush.promise
  }

  /** The callback of one write to stdout, and the promise its sender gets (see `write`). */
  private flushing(): { promise: Promise<void>; resolve: () => void; callback: (error?: Error | null) => void; waiting: boolean } {
    let resolve!: () => void
    let reject!: (error: Error) => void
    const promise = new Promise<void>((yes, no) => {
      resolve = yes
      reject = no
    })
    const flush = {
      promise,
      resolve,
      waiting: false,
      callback: (error?: Error | null) => {
        this.flow()
        if (!flush.waiting) return
        if (error) reject(error)
        else resolve()
      },
    }
    return flush
  }

  private buffered(): number {
    return this.options.buffered ? this.options.buffered() : this.stdout.writableLength
  }

  /** Pause stdin while the bytes in flight are over the cap; resume once they are not. */
  private flow(): void {
    if (this.closed) return
    const over = this.inFlight() > this.options.maxBytesInFlight
    // one call let through at a time: its answer counts before the next one is admitted
    if (!over && this.admissions.length) this.admissions.shift()!()
    if (over && !this.paused) {
      this.paused = true
      this.stdin.pause()
    } else if (!over && this.paused) {
      this.paused = false
      this.stdin.resume()
    }
  }

  private answered(id: RequestId): void {
    const key = keyOf(id)
    const bytes = this.pending.get(key)
    if (bytes === undefined) return
    this.pending.delete(key)
    this.pendingBytes -= bytes
    const waiting = this.onAnswer.get(key)
    if (!waiting) return
    this.onAnswer.delete(key)
    for (const done of waiting) done()
  }

  private readonly onError = (error: Error) => this.onerror?.(error)

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let start = 0
    while (start < data.length && !this.closed) {
      const end = data.indexOf(NEWLINE, start)
      const piece = end === -1 ? data.subarray(start) : data.subarray(start, end)
      this.append(piece)
      if (end === -1) break
      this.endLine()
      start = end + 1
    }
    this.flow()
  }

  private append(piece: Buffer): void {
    if (!piece.length) return
    if (this.oversized) {
      this.oversized.scanner.feed(piece)
      this.oversized.bytes += piece.length
      return
    }
    if (this.partialBytes + piece.length > this.options.maxMessageBytes) {
      // from here on nothing of this line is kept: its bytes only pass through the id scanner
      const scanner = new IdScanner()
      for (const held of this.partial) scanner.feed(held)
      scanner.feed(piece)
      this.oversized = { scanner, bytes: this.partialBytes + piece.length }
      this.partial = []
      this.partialBytes = 0
      return
    }
    // a chunk's bytes are the stream's own and not reused: held as they are, joined once the line ends
    this.partial.push(piece)
    this.partialBytes += piece.length
  }

  private endLine(): void {
    if (this.oversized) {
      const { scanner, bytes } = this.oversized
      this.oversized = undefined
      this.refuse({
        id: scanner.id(),
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: the message is ${bytes} bytes, over the limit of ${this.options.maxMessageBytes} (mcp.maxMessageBytes); it was not read`,
      })
      return
    }
    const parts = this.partial
    const bytes = this.partialBytes
    this.partial = []
    this.partialBytes = 0
    if (!bytes) return
    let line = parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts, bytes).toString('utf8')
    if (line.endsWith('\r')) line = line.slice(0, -1)
    if (!line.trim()) return
    const checked = checkLine(line)
    if (!checked.ok) {
      this.refuse(checked.refusal)
      return
    }
    if (checked.id !== undefined) {
      const key = keyOf(checked.id)
      this.pending.set(key, (this.pending.get(key) ?? 0) + bytes)
      this.pendingBytes += bytes
    } else {
      const message = checked.message as { method?: string; params?: { requestId?: RequestId } }
      // a cancelled request is never answered (the SDK drops its result): its bytes leave now
      if (message.method === 'notifications/cancelled' && message.params?.requestId !== undefined) this.answered(message.params.requestId)
    }
    try {
      this.onmessage?.(checked.message)
    } catch (error) {
      this.onerror?.(error as Error)
    }
  }

  private refuse(refusal: Refusal): void {
    this.options.report?.(`refused a message${refusal.id !== null ? ` (id ${JSON.stringify(refusal.id).slice(0, 40)})` : ''}: ${refusal.message}`)
    if (refusal.silent) return
    this.write(JSON.stringify({ jsonrpc: '2.0', id: refusal.id, error: { code: refusal.code, message: refusal.message } }) + '\n').catch(() => {})
  }
}

/** 1 and "1" are different ids. */
function keyOf(id: RequestId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`
}
