/**
 * Helpers for the `dsh mcp` end-to-end tests: a temporary workspace with a
 * dsh.yml, the real `dsh` CLI (core/dsh/lib, built by `npx tsc -b`) spawned by
 * the official MCP SDK client, and readers for the server's stderr and its
 * session log.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { Readable } from 'node:stream'
import { stringify } from 'yaml'
import { afterEach, beforeAll } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { dshEnv } from '../cache-home.js'

/** what an elicitation handler gets besides the form: its `signal` aborts when the server withdraws the form */
export interface ElicitExtra {
  signal: AbortSignal
}

const root = join(import.meta.dirname, '../..')
// the command users run: bin/dsh.cjs (the package's bin), which runs the bundle (dist/) the build made
export const CLI = join(root, 'core/dsh/bin/dsh.cjs')
export const FIXTURES = join(root, 'test/fixtures/plugins')
export const fixture = (name: string) => join(FIXTURES, name)

/** Fail early, and say why, when the MCP server under test is missing or older than its sources. */
export function assertBuilt(): void {
  const bundle = join(root, 'core/dsh/dist/cli.cjs')
  // every source of the CLI and of the server it serves, each beside its build in the package's lib/
  const sources = ['core/dsh', 'adapters/mcp'].flatMap((pkg) => (readdirSync(join(root, pkg, 'src'), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ file: join(root, pkg, 'src', name), built: join(root, pkg, 'lib', name).replace(/\.ts$/, '.js') })))
  for (const { file, built } of sources) {
    let builtAt: number
    try {
      builtAt = statSync(built).mtimeMs
    } catch {
      throw new Error(`${relative(root, built)} is missing: run \`npx tsc -b\` before these tests`)
    }
    if (builtAt < statSync(file).mtimeMs) throw new Error(`${relative(root, built)} is older than its source: run \`npx tsc -b\` before these tests`)
    if (statSync(bundle, { throwIfNoEntry: false }) === undefined || statSync(bundle).mtimeMs < builtAt) throw new Error(`${relative(root, bundle)} is missing or older than ${relative(root, built)}: run \`npm run build\` before these tests`)
  }
}

export interface SessionLine {
  seq: number
  type: string
  data: any
}

/** Poll `probe` until it returns something (not a timed assertion: the test's own timeout bounds it). */
export async function until<T>(probe: () => T | undefined | false, what: string, limitMs = 15_000): Promise<T> {
  const deadline = Date.now() + limitMs
  for (;;) {
    const value = probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'dsh-mcp-'))
  readonly config = join(this.dir, 'dsh.yml')

  constructor(config: object) {
    this.write(config)
  }

  /** (Re)write dsh.yml; `dataDir` is always the workspace's `.dsh`. */
  write(config: object | string): void {
    writeFileSync(this.config, typeof config === 'string' ? config : stringify({ dataDir: '.dsh', ...config }))
  }

  /** Every event of the single session log under `.dsh/sessions`. */
  events(): SessionLine[] {
    let files: string[]
    try {
      files = readdirSync(join(this.dir, '.dsh/sessions')).filter((f) => f.endsWith('.jsonl'))
    } catch {
      return []
    }
    if (files.length > 1) throw new Error(`expected one session log, found ${files.join(', ')}`)
    if (!files.length) return []
    return readFileSync(join(this.dir, '.dsh/sessions', files[0]), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
  }

  sessionFiles(): string[] {
    return readdirSync(join(this.dir, '.dsh/sessions'))
  }

  waitForEvent(match: (e: SessionLine) => boolean, what: string): Promise<SessionLine> {
    return until(() => this.events().find(match), what)
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** Text collected from a stream, with a way to wait for a line. */
export class Output {
  text = ''

  constructor(stream: Readable | null) {
    stream?.setEncoding('utf8')
    stream?.on('data', (chunk: string) => (this.text += chunk))
  }

  waitFor(pattern: RegExp, what = String(pattern)): Promise<RegExpMatchArray> {
    return until(() => this.text.match(pattern) ?? undefined, `${what} on the server's stderr`)
  }
}

export interface StartOptions {
  watch?: boolean
  /** declare the elicitation capability and answer with this */
  elicit?: (request: ElicitRequest['params'], extra: ElicitExtra) => ElicitResult | Promise<ElicitResult>
  /** set handlers on the client before it connects (for what the server sends at once) */
  before?: (client: Client) => void
  /** more arguments for `dsh mcp` */
  args?: string[]
}

export interface Connection {
  client: Client
  transport: StdioClientTransport
  stderr: Output
  close(): Promise<void>
}

/** A server started by `mcpServers()`: its workspace, its connection, and the client. */
export interface Started {
  ws: Workspace
  conn: Connection
  client: Client
}

/**
 * The set-up every MCP spec shares: checks the CLI is built, and returns
 * `start(config, options)`, which spawns a server in a fresh workspace. Every
 * server a test started is closed, and its workspace removed, after the test.
 */
export function mcpServers(): (config: object, options?: StartOptions) => Promise<Started> {
  const running: Array<{ ws: Workspace; conn?: Connection }> = []
  beforeAll(assertBuilt)
  afterEach(async () => {
    for (const { ws, conn } of running.splice(0)) {
      await conn?.close()
      ws.cleanup()
    }
  })
  return async (config, options = {}) => {
    const entry: { ws: Workspace; conn?: Connection } = { ws: new Workspace(config) }
    running.push(entry)
    const conn = (entry.conn = await connect(entry.ws, options))
    return { ws: entry.ws, conn, client: conn.client }
  }
}

export async function connect(ws: Workspace, options: StartOptions = {}): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config', ws.config, ...(options.watch ? ['--watch'] : []), ...(options.args ?? [])],
    cwd: ws.dir,
    // what the SDK passes by default, and a cache of the test file's own
    env: dshEnv({}, getDefaultEnvironment()),
    stderr: 'pipe',
  })
  const stderr = new Output(transport.stderr as Readable)
  const client = new Client({ name: 'dsh-e2e', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} })
  if (options.elicit) {
    const answer = options.elicit
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => answer(request.params, extra))
  }
  options.before?.(client)
  await client.connect(transport)
  return { client, transport, stderr, close: () => client.close() }
}

/** The text of an MCP tool result's content. */
export function text(result: object): string {
  return (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('')
}

/** The dsh error code of an MCP tool result, if any. */
export function errorCode(result: object): string | undefined {
  return ((result as { _meta?: Record<string, unknown> })._meta?.['dsh/error'] as { code?: string } | undefined)?.code
}
