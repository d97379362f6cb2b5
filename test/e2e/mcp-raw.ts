/**
 * `dsh mcp` as a child process with raw pipes, for the specs that speak
 * JSON-RPC by hand (malformed messages, a client that stops reading, signals):
 * write lines, read the answers by id, sample the server's resident memory.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterEach } from 'vitest'
import { CLI, until } from './mcp-helpers.js'
import { dshEnv } from '../cache-home.js'

export interface RawServer {
  child: ChildProcessWithoutNullStreams
  /** stderr so far */
  stderr(): string
  /** every answer parsed so far (stdout lines) */
  messages(): any[]
  /** write one line as it is (a newline is added) */
  line(text: string): void
  /** write one message, with `jsonrpc: "2.0"` unless it has its own */
  send(message: object): void
  /** the answer to request `id` */
  reply(id: number | string | null, what?: string): Promise<any>
  initialize(): Promise<void>
  /** the exit code (null: a signal) */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>
  /** VmRSS of the server, in MB */
  rssMb(): number
}

const children: ChildProcessWithoutNullStreams[] = []

/** Kill what a test left running (registered once per spec file that imports this). */
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

export function rawServer(args: string[], cwd: string, options: { read?: boolean; env?: Record<string, string> } = {}): RawServer {
  const child = spawn(process.execPath, [CLI, 'mcp', ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: dshEnv(options.env) })
  children.push(child)
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c))
  // answers are parsed as they come, so a test holding hundreds of large ones keeps only what it reads
  const parsed: any[] = []
  let partial = ''
  if (options.read !== false) {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      partial += c
      let nl: number
      while ((nl = partial.indexOf('\n')) !== -1) {
        const text = partial.slice(0, nl)
        partial = partial.slice(nl + 1)
        if (text) parsed.push(JSON.parse(text))
      }
    })
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: performance.now() })))
  const line = (text: string) => {
    child.stdin.write(`${text}\n`)
  }
  const server: RawServer = {
    child,
    stderr: () => err,
    messages: () => parsed,
    line,
    send: (message) => line(JSON.stringify({ jsonrpc: '2.0', ...message })),
    reply: (id, what) => until(() => parsed.find((m) => m.id === id && ('result' in m || 'error' in m)), what ?? `the answer to request ${JSON.stringify(id)}`, 30_000),
    async initialize() {
      server.send({ id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
      await server.reply('init')
      server.send({ method: 'notifications/initialized' })
    },
    exited,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
  }
  return server
}
