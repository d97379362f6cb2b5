/**
 * The SDK transport for a confined stdio server: the SDK's own framing
 * (`ReadBuffer`, `serializeMessage`) over a child we spawn ourselves, because
 * the SDK's StdioClientTransport inherits part of the host's environment and
 * signals only its direct child. Here the argv is the sandbox's, the
 * environment the one given (nothing of the host's), and close() ends it:
 * SIGTERM, then SIGKILL. A confined server's launcher puts it in a process
 * group of its own and reaps all it started when signalled (bwrap's PID
 * namespace ends with it); an unconfined one is made to lead its own group
 * here, and the whole group is signalled.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { StderrTail } from './stderr-tail.js'

/** longer than landlock-run's own 1 s grace, so it can reap what the server started */
const KILL_GRACE_MS = 1500

export interface StdioOptions {
  argv: readonly string[]
  env: Readonly<Record<string, string>>
  cwd: string
  maxMessageBytes: number
  stderr: StderrTail
  /**
   * start the process as the leader of a new session and signal its whole group: for a server
   * nothing else reaps (unconfined). Not for confined ones: a new session is a new scheduler
   * autogroup, which cost ~1 ms per call on a loaded machine (native/landlock-run/terminal.c)
   */
  ownGroup: boolean
}

export interface ExitInfo {
  code: number | null
  signal: NodeJS.Signals | null
  /** why we ended it, when we did */
  reason?: string
}

export class ConfinedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** how the process ended, once it has */
  exit?: ExitInfo
  private child?: ChildProcessWithoutNullStreams
  private buffer: ReadBuffer
  private closing?: Promise<void>
  private reason?: string

  constructor(private readonly options: StdioOptions) {
    this.buffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes })
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the transport is already started')
    const [file, ...args] = this.options.argv
    return new Promise((resolve, reject) => {
      const child = spawn(file!, args, { cwd: this.options.cwd, env: { ...this.options.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: this.options.ownGroup, shell: false })
      this.child = child
      child.once('error', (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once('spawn', () => resolve())
      child.once('close', (code, signal) => {
        this.exit = { code, signal, ...(this.reason ? { reason: this.reason } : {}) }
        this.child = undefined
        this.onclose?.()
      })
      child.stdin.on('error', (error) => this.onerror?.(error))
      child.stdout.on('data', (chunk: Buffer) => this.read(chunk))
      child.stderr.on('data', (chunk: Buffer) => this.options.stderr.push(chunk))
    })
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk)
    } catch {
      // Why end the server: a message over the cap would otherwise be held in memory whole
      this.kill(`it sent a message over maxMessageBytes (${this.options.maxMessageBytes} bytes)`)
      return
    }
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message: ${(error as Error).message}`))
        continue
      }
      if (message === null) break
      this.onmessage?.(message)
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child
    if (!child) return Promise.reject(new Error('the server is not running'))
    return new Promise((resolve) => {
      if (child.stdin.write(serializeMessage(message))) resolve()
      else child.stdin.once('drain', () => resolve())
    })
  }

  /** End the process group now (first reason wins). */
  kill(reason: string): void {
    this.reason ??= reason
    void this.close()
  }

  close(): Promise<void> {
    this.closing ??= this.stop()
    return this.closing
  }

  private async stop(): Promise<void> {
    const child = this.child
    this.buffer.clear()
    if (!child || child.pid === undefined) return
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
    child.stdin.end()
    const pid = this.options.ownGroup ? -child.pid : child.pid
    signal(pid, 'SIGTERM')
    const timer = setTimeout(() => signal(pid, 'SIGKILL'), KILL_GRACE_MS)
    // Why: a process that left the group and holds the pipes open must not keep close() waiting
    const pipes = setTimeout(() => {
      child.stdout.destroy()
      child.stderr.destroy()
    }, 2 * KILL_GRACE_MS)
    try {
      await closed
    } finally {
      clearTimeout(timer)
      clearTimeout(pipes)
      // Why again: a descendant in the group that ignored SIGTERM may still run
      if (this.options.ownGroup) signal(pid, 'SIGKILL')
    }
  }
}

/** a negative pid is a process group */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {}
}
