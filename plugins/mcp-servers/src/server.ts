/**
 * One upstream server over its life: started (lazily or not), its tools
 * known, its calls made through the SDK client with the call's signal (the
 * SDK sends `notifications/cancelled` on abort) and progress, restarted with
 * backoff after it exits, and given up after `maxFailures` restarts in a row
 * — then its tools leave and every call says why. A server that floods
 * notifications is cut off like one that crashed.
 */
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { canonicalJson, describeError, KernelError } from '@dsh/kernel'
import type { ToolCall } from '@dsh/tools'
import { connect, type ConnectOptions, type Connection } from './connect.js'
import { FloodGuard } from './flood-guard.js'
import { RequestSignal } from './request-signal.js'
import { ConfinedStdioTransport } from './stdio-transport.js'
import { StderrTail, stderrNote } from './stderr-tail.js'
import type { Config, ServerConfig } from './config.js'

const MAX_BACKOFF_MS = 30_000
/** a server that ran this long before it failed starts counting its failures afresh */
const STABLE_MS = 30_000

/** `resting`: stopped after idleTimeoutMs without calls, its tools kept; the next call starts it */
export type ServerState = 'idle' | 'starting' | 'ready' | 'resting' | 'restarting' | 'failed' | 'stopped'

/** What the plugin instance holding the server hears from it. */
export interface ServerOwner {
  /** the server's tool list is now this (empty while it is down for good) */
  tools(tools: readonly Tool[]): void
  /** the server is given up: its tools are gone */
  exited(info: { server: string; failures: number; reason: string }): void
  /** something worth a log line */
  warn(message: string): void
}

export type Limits = Pick<Config, 'initializeTimeoutMs' | 'callTimeoutMs' | 'maxFailures' | 'restartBackoffMs' | 'maxMessageBytes' | 'stderrTailBytes' | 'maxNotificationsPerSecond' | 'idleTimeoutMs'>

export class UpstreamServer {
  state: ServerState = 'idle'
  /** failures in a row (a server that ran STABLE_MS before failing starts again from one) */
  failures = 0
  private readySince = 0
  tools: readonly Tool[] = []
  readonly stderr: StderrTail
  owner?: ServerOwner
  private connection?: Connection
  private starting?: Promise<Connection>
  private restartTimer?: NodeJS.Timeout
  private lastError?: string
  /** calls running now; the idle timer runs only while there are none */
  private running = 0
  private idleTimer?: NodeJS.Timeout

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly limits: Limits,
    private readonly options: Omit<ConnectOptions, 'stderr' | 'initializeTimeoutMs' | 'maxMessageBytes'>,
  ) {
    this.stderr = new StderrTail(limits.stderrTailBytes)
  }

  /** the pid of a running stdio server */
  get pid(): number | undefined {
    const transport = this.connection?.transport
    return transport instanceof ConfinedStdioTransport ? transport.pid : undefined
  }

  /** how the running stdio server is confined (absent for HTTP, or while it is down): one frozen object per connection, recorded with each call */
  get confinement(): Connection['confinement'] {
    return this.connection?.confinement
  }

  /** Start (once); resolves when the tools are known, rejects with why it could not start. */
  start(): Promise<Connection> {
    if (this.state === 'stopped') return Promise.reject(new Error(`${this.name} is stopped`))
    if (this.connection) return Promise.resolve(this.connection)
    if (this.starting) return this.starting
    this.state = 'starting'
    this.starting = this.open().finally(() => {
      this.starting = undefined
    })
    return this.starting
  }

  private async open(): Promise<Connection> {
    let connection: Connection
    try {
      connection = await connect(this.name, this.config, { ...this.options, stderr: this.stderr, initializeTimeoutMs: this.limits.initializeTimeoutMs, maxMessageBytes: this.limits.maxMessageBytes })
    } catch (error) {
      // a config that cannot work (a server under the host's /tmp) is not retried: it would fail the same way
      this.failed(`it could not start: ${describeError(error)}`, KernelError.is(error, 'INVALID_CONFIG'))
      throw new Error(`MCP server ${this.name} could not start: ${describeError(error)}${stderrNote(this.name, this.stderr.text())}`)
    }
    if (this.state === 'stopped') {
      await connection.client.close().catch(() => {})
      this.cleanup(connection)
      throw new Error(`${this.name} is stopped`)
    }
    this.connection = connection
    this.state = 'ready'
    this.readySince = Date.now()
    this.watch(connection)
    this.setTools(connection.tools)
    this.idleAfterCall()
    return connection
  }

  /** With no call running, stop a stdio server after idleTimeoutMs (its tools stay; the next call starts it again). */
  private idleAfterCall(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    if (!this.limits.idleTimeoutMs || this.running > 0 || !(this.connection?.transport instanceof ConfinedStdioTransport)) return
    this.idleTimer = setTimeout(() => void this.rest(), this.limits.idleTimeoutMs)
    this.idleTimer.unref?.()
  }

  private async rest(): Promise<void> {
    this.idleTimer = undefined
    const connection = this.connection
    if (!connection || this.running > 0 || this.state !== 'ready') return
    // Why first: closed() then sees a connection that is no longer the server's, and counts no failure
    this.connection = undefined
    this.state = 'resting'
    await connection.client.close().catch(() => {})
    this.cleanup(connection)
  }

  private watch(connection: Connection): void {
    const { client, transport } = connection
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.relist(connection))
    const guard = new FloodGuard(this.limits.maxNotificationsPerSecond)
    const inner = transport.onmessage
    transport.onmessage = (message, extra) => {
      if (guard.over(message)) {
        this.lastError = `it sent more than maxNotificationsPerSecond (${this.limits.maxNotificationsPerSecond}) notifications in a second`
        void client.close().catch(() => {})
        return
      }
      inner?.(message, extra)
    }
    client.onclose = () => this.closed(connection)
    client.onerror = (error) => this.owner?.warn(`MCP server ${this.name}: ${describeError(error)}`)
  }

  private async relist(connection: Connection): Promise<void> {
    try {
      const listed = await connection.client.listTools({}, { timeout: this.limits.initializeTimeoutMs })
      if (this.connection === connection) this.setTools(listed.tools)
    } catch (error) {
      this.owner?.warn(`MCP server ${this.name}: tools/list after list_changed failed: ${describeError(error)}`)
    }
  }

  private setTools(tools: readonly Tool[]): void {
    // a server started again (after a rest or a crash) that lists what it listed leaves its tools as they are
    if (tools.length && this.tools.length && sameTools(tools, this.tools)) return
    this.tools = tools
    this.owner?.tools(tools)
  }

  /** The connection ended without our asking: count it, then restart with backoff or give up. */
  private closed(connection: Connection): void {
    if (this.connection !== connection) return
    this.connection = undefined
    this.cleanup(connection)
    if (this.state === 'stopped') return
    const transport = connection.transport
    const exit = transport instanceof ConfinedStdioTransport ? transport.exit : undefined
    const how = this.lastError ?? exit?.reason
      ?? (exit ? `it exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})` : 'its connection closed')
    this.lastError = undefined
    if (Date.now() - this.readySince >= STABLE_MS) this.failures = 0
    this.failed(how)
  }

  private failed(reason: string, final = false): void {
    this.failures++
    this.lastError = reason
    if (final || this.failures > this.limits.maxFailures) {
      this.state = 'failed'
      this.setTools([])
      this.owner?.exited({ server: this.name, failures: this.failures, reason })
      return
    }
    this.state = 'restarting'
    const delay = Math.min(this.limits.restartBackoffMs * 2 ** (this.failures - 1), MAX_BACKOFF_MS)
    this.owner?.warn(`MCP server ${this.name}: ${reason}; restarting in ${delay} ms (failure ${this.failures} of ${this.limits.maxFailures})`)
    clearTimeout(this.restartTimer)
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined
      this.start().catch(() => {})
    }, delay)
    this.restartTimer.unref?.()
  }

  /** Why a call cannot be made now, or undefined. */
  private unavailable(): string | undefined {
    if (this.state === 'failed') return `MCP server ${this.name} was given up after ${this.failures} failures in a row (last: ${this.lastError}); fix it and reload the config`
    if (this.state === 'stopped') return `MCP server ${this.name} is stopped`
    return undefined
  }

  async call(tool: string, args: Record<string, unknown>, call: ToolCall): Promise<CallToolResult> {
    const why = this.unavailable()
    if (why) throw new Error(`${why}${stderrNote(this.name, this.stderr.text())}`)
    this.running++
    clearTimeout(this.idleTimer)
    try {
      return await this.callStarted(tool, args, call)
    } finally {
      this.running--
      this.idleAfterCall()
    }
  }

  private async callStarted(tool: string, args: Record<string, unknown>, call: ToolCall): Promise<CallToolResult> {
    // a restarting or resting server is waited for (its start is bounded by initializeTimeoutMs)
    const connection = this.connection ?? await this.waitForStart()
    // a signal of its own per request (request-signal.ts: why not the call's, why not an AbortController)
    const request = new RequestSignal()
    const onAbort = () => request.abort(call.signal.reason)
    if (call.signal.aborted) onAbort()
    else call.signal.addEventListener('abort', onAbort, { once: true })
    try {
      const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: request.signal,
        timeout: this.limits.callTimeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.limits.callTimeoutMs * 10,
        onprogress: (p) => call.progress(`${p.progress}${p.total !== undefined ? ` of ${p.total}` : ''}${p.message ? `: ${p.message}` : ''}`),
      })
      return result as CallToolResult
    } catch (error) {
      if (call.signal.aborted) throw error
      const message = describeError(error)
      if (/Request timed out/i.test(message)) throw new KernelError('TIMEOUT', `MCP server ${this.name} did not answer ${tool} within callTimeoutMs (${this.limits.callTimeoutMs} ms)`)
      // the process ended under the call: say how, with what it said on stderr
      await settled(connection)
      const how = this.connection === connection ? message : `${message}: ${this.lastError ?? 'the server is gone'}`
      throw new Error(`MCP server ${this.name} failed on ${tool}: ${how}${stderrNote(this.name, this.stderr.text())}`)
    } finally {
      call.signal.removeEventListener('abort', onAbort)
    }
  }

  private async waitForStart(): Promise<Connection> {
    if (this.state === 'restarting' && this.restartTimer) {
      clearTimeout(this.restartTimer)
      this.restartTimer = undefined
    }
    try {
      return await this.start()
    } catch (error) {
      throw new Error(this.unavailable() ?? describeError(error))
    }
  }

  private cleanup(connection: Connection): void {
    cleanupOf(this, connection)
  }

  /** Stop for good: the process group ended, no restart. Resolves once it is gone. */
  async stop(): Promise<void> {
    this.state = 'stopped'
    clearTimeout(this.restartTimer)
    clearTimeout(this.idleTimer)
    const connection = this.connection ?? await this.starting?.catch(() => undefined)
    this.connection = undefined
    if (!connection) return
    await connection.client.close().catch(() => {})
    this.cleanup(connection)
  }
}

/** Put back what the server changed of the protected paths (it is gone now); a failure is said, never thrown. */
function cleanupOf(server: UpstreamServer, connection: Connection): void {
  connection.end?.()
  try {
    const restored = connection.confined?.cleanup() ?? []
    if (restored.length) server.owner?.warn(`MCP server ${server.name}: the sandbox removed or restored protected paths it changed: ${restored.join(', ')}`)
  } catch (error) {
    server.owner?.warn(`MCP server ${server.name}: ${describeError(error)}`)
  }
}

function sameTools(a: readonly Tool[], b: readonly Tool[]): boolean {
  try {
    return canonicalJson(a as any) === canonicalJson(b as any)
  } catch {
    return false
  }
}

/** After a failed request: wait (briefly) for the transport's close, so the error can say how the server ended. */
async function settled(connection: Connection): Promise<void> {
  const transport = connection.transport
  if (!(transport instanceof ConfinedStdioTransport) || transport.exit) return
  for (let i = 0; i < 20 && !transport.exit; i++) await new Promise((r) => setTimeout(r, 25))
}
