/**
 * One connection to an upstream server: the transport (a confined stdio
 * child, or Streamable HTTP through the network policy) and the SDK client
 * on it, initialized and with its tools listed — each step bounded by
 * `initializeTimeoutMs`, so a server that never answers ends as an error.
 */
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { SANDBOX_PATH, sandboxEnv, type Confined, type ConfineCall, type SandboxPolicy, type SandboxService } from '@dsh/sandbox'
import { KernelError, type SandboxMode } from '@dsh/kernel'
import { ConfinedStdioTransport } from './stdio-transport.js'
import { pinnedFetch } from './pinned-fetch.js'
import { hostTmpProblem } from './host-tmp.js'
import { findProgram } from './program.js'
import { pipelineChecksResults } from './validator.js'
import { isHttp, type HttpServerConfig, type ServerConfig, type StdioServerConfig } from './config.js'
import type { StderrTail } from './stderr-tail.js'

export const CLIENT_INFO = { name: 'dsh', version: '0.1.0' }
/** pages of tools/list read at most (a server that pages forever is cut off) */
const MAX_PAGES = 100

export interface ConnectOptions {
  sandbox: SandboxService
  workspace: string
  /** the sandbox mode a server without its own runs in */
  mode: SandboxMode
  initializeTimeoutMs: number
  maxMessageBytes: number
  stderr: StderrTail
  /** where the sandbox records an HTTP server's connections */
  recorder: () => ConfineCall
}

export interface Connection {
  client: Client
  transport: Transport
  tools: Tool[]
  /** the confinement of a stdio server (absent for HTTP) */
  confined?: Confined
  /** ends what the connection holds besides its transport (an HTTP server's kept-alive sockets) */
  end?: () => void
  /** what each call records of it: backend, enforcement, what is not enforced */
  confinement?: { backend: string; enforcement: string; unenforced: string[] }
}

/** The policy a stdio server runs under: its own mode or the default, network off unless it says otherwise. */
export function serverPolicy(config: StdioServerConfig, options: Pick<ConnectOptions, 'workspace' | 'mode'>): SandboxPolicy {
  const network = config.sandbox?.network ?? 'off'
  return {
    mode: config.sandbox?.mode ?? options.mode,
    workspace: options.workspace,
    network: typeof network === 'object' ? { allow: network.allow ?? [], ...(network.deny ? { deny: network.deny } : {}) } : network,
    ...(config.env && Object.keys(config.env).length ? { env: config.env } : {}),
  }
}

async function stdioTransport(name: string, config: StdioServerConfig, options: ConnectOptions): Promise<{ transport: ConfinedStdioTransport; confined: Confined }> {
  const program = findProgram(config.command, config.env?.PATH ?? SANDBOX_PATH)
  const cwd = config.cwd === undefined ? options.workspace : resolve(options.workspace, config.cwd)
  const policy = serverPolicy(config, options)
  // Why a recorder even without a call: a server whose network lists hosts has its connections recorded too
  const confined = await options.sandbox.confine([program, ...(config.args ?? [])], { ...policy, workspace: realpathSync(options.workspace) }, options.recorder())
  const hidden = hostTmpProblem(name, { program, args: config.args ?? [], cwd, workspace: options.workspace, backend: confined.backend })
  if (hidden) {
    confined.cleanup()
    throw new KernelError('INVALID_CONFIG', hidden, { details: { path: hidden.slice(0, hidden.indexOf(':')) } })
  }
  // Why this environment: the confined argv fixes the server's own; unconfined (danger-full-access) it is all it gets
  const env = confined.backend === 'none' ? { ...sandboxEnv(options.workspace), ...config.env } : { ...sandboxEnv(options.workspace), ...confined.spawnEnv }
  return { transport: new ConfinedStdioTransport({ argv: confined.argv, env, cwd, maxMessageBytes: options.maxMessageBytes, stderr: options.stderr, ownGroup: confined.backend === 'none' }), confined }
}

function httpTransport(config: HttpServerConfig, options: ConnectOptions): { transport: Transport; close: () => void } {
  let url: URL
  try {
    url = new URL(config.url)
  } catch {
    throw new Error(`url ${JSON.stringify(config.url)} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`url ${JSON.stringify(config.url)} is not http: or https:`)
  // every request is decided, not only the first, and sent where it was decided (pinned-fetch.ts)
  const pinned = pinnedFetch((host, port) => options.sandbox.checkConnection(host, port, options.recorder()))
  return { transport: new StreamableHTTPClientTransport(url, { requestInit: { headers: config.headers ?? {} }, fetch: pinned.fetch }), close: pinned.close }
}

/** Work that `ms` bounds: on expiry `onTimeout` runs (ending the transport) and the promise rejects with `message`. */
async function bounded<T>(work: Promise<T>, ms: number, message: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout()
        reject(new Error(message))
      }, ms)
    })])
  } finally {
    clearTimeout(timer)
  }
}

export async function connect(name: string, config: ServerConfig, options: ConnectOptions): Promise<Connection> {
  let transport: Transport
  let confined: Confined | undefined
  let release: (() => void) | undefined
  if (isHttp(config)) {
    ({ transport, close: release } = httpTransport(config, options))
  } else {
    ({ transport, confined } = await stdioTransport(name, config, options))
  }
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: pipelineChecksResults() })
  const limit = options.initializeTimeoutMs
  const end = () => void client.close().catch(() => {})
  // Why reworded: the SDK's own timeout says only "Request timed out"
  const said = (step: string) => (error: unknown) => {
    throw /Request timed out/i.test(String((error as Error)?.message)) ? new Error(`${name} did not answer ${step} within initializeTimeoutMs (${limit} ms)`) : error
  }
  try {
    // the SDK's own timeout rejects the request; bounded() also ends the transport, so nothing waits on
    await bounded(client.connect(transport, { timeout: limit }).catch(said('initialize')), limit + 100, `${name} did not answer initialize within initializeTimeoutMs (${limit} ms)`, end)
    const tools: Tool[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await bounded(client.listTools(cursor === undefined ? {} : { cursor }, { timeout: limit }).catch(said('tools/list')), limit + 100, `${name} did not answer tools/list within initializeTimeoutMs (${limit} ms)`, end)
      tools.push(...listed.tools)
      cursor = listed.nextCursor
      if (cursor === undefined) break
    }
    if (!confined) return { client, transport, tools, ...(release ? { end: release } : {}) }
    // frozen (its array too): every call records this one object
    const confinement = Object.freeze({ backend: confined.backend, enforcement: confined.enforcement, unenforced: Object.freeze([...confined.unenforced]) as string[] })
    return { client, transport, tools, confined, confinement }
  } catch (error) {
    await client.close().catch(() => {})
    // Why the transport too: a client that failed before it took the transport does not close it, and the process would stay
    await transport.close().catch(() => {})
    release?.()
    try {
      confined?.cleanup()
    } catch {}
    throw error
  }
}

