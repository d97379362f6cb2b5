/**
 * The configuration of mcp-servers (DESIGN §16.3), checked when the plugin
 * loads: the servers themselves, the client files to read more from, the
 * names to leave out, and the lifecycle limits. A bad value fails with its
 * path (`$.servers.github.command expected string but got 5`).
 */
import Schema from 'schemastery'
import { SANDBOX_MODES, type SandboxMode } from '@dsh/sandbox'

export type SourceName = 'mcp.json' | 'claude-code' | 'codex'
export const SOURCE_NAMES: readonly SourceName[] = ['mcp.json', 'claude-code', 'codex']

export type ServerNetwork = 'off' | 'on' | { allow?: string[]; deny?: string[] }

export interface StdioServerConfig {
  command: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
  sandbox?: { mode?: SandboxMode; network?: ServerNetwork }
}

export interface HttpServerConfig {
  url: string
  headers?: Record<string, string>
}

export type ServerConfig = StdioServerConfig | HttpServerConfig

export const isHttp = (config: ServerConfig): config is HttpServerConfig => 'url' in config

export interface Config {
  servers: Record<string, ServerConfig>
  sources: SourceName[]
  exclude: string[]
  /** `eager`: the plugin's start waits until every server has listed its tools; `lazy`: servers start in the background */
  start: 'eager' | 'lazy'
  /** bound on `initialize` and the first `tools/list` */
  initializeTimeoutMs: number
  /** a call that runs longer ends `TIMEOUT` (upstream progress extends it, up to 10 times) */
  callTimeoutMs: number
  /** restarts after a crash, with backoff, before the server's tools leave */
  maxFailures: number
  /** the first restart's delay; each next one doubles, up to 30 s */
  restartBackoffMs: number
  /** bytes of one message from a server (a larger one ends the connection and its calls) */
  maxMessageBytes: number
  /** bytes of a result's content and value kept; a result over it is an error */
  maxResultBytes: number
  /** stderr bytes kept per server, shown in errors */
  stderrTailBytes: number
  /** notifications per second a server may send before it is disconnected as a flood */
  maxNotificationsPerSecond: number
  /** a stdio server with no call for this long is stopped, and started again by the next call (0: never) */
  idleTimeoutMs: number
}

const network = Schema.union([
  Schema.const('off'),
  Schema.const('on'),
  Schema.object({ allow: Schema.array(String), deny: Schema.array(String) }),
]).description('the server\'s network: off (default), on, or the hosts it may reach through the sandbox\'s proxy')

const stdio = Schema.object({
  command: Schema.string().required().description('the program (a name looked up on the sandbox PATH, or an absolute path)'),
  args: Schema.array(String),
  env: Schema.dict(String).description('variables added to the server\'s fixed environment'),
  cwd: Schema.string().description('the server\'s working directory (default: the workspace)'),
  sandbox: Schema.object({
    mode: Schema.union(SANDBOX_MODES.map((m) => Schema.const(m))).description('default: the sandbox\'s default mode'),
    network,
  }),
})

const http = Schema.object({
  url: Schema.string().required().description('a Streamable HTTP endpoint (http: or https:)'),
  headers: Schema.dict(String),
})

const ms = (fallback: number) => Schema.natural().min(1).max(2_147_483_647).default(fallback)

export const Config: Schema<Config> = Schema.object({
  servers: Schema.dict(Schema.union([stdio, http])).default({})
    .description('Upstream servers by name: { command, args?, env?, cwd?, sandbox?: { mode?, network? } } for stdio, { url, headers? } for Streamable HTTP. Each tool becomes mcp__<name>__<tool>.'),
  sources: Schema.array(Schema.union(SOURCE_NAMES.map((s) => Schema.const(s)))).default([])
    .description('Client configurations to read more servers from, unchanged: mcp.json (the project\'s .mcp.json), claude-code (Claude Code\'s user and project servers), codex (Codex\'s [mcp_servers]). A server in servers wins over one of the same name here.'),
  exclude: Schema.array(String).default([]).description('Server names to leave out, from servers and sources alike.'),
  start: Schema.union([Schema.const('eager'), Schema.const('lazy')]).default('eager')
    .description('eager: the kernel\'s start (and a reload) waits until every server has listed its tools or failed; lazy: servers start in the background and their tools arrive with tools/change.'),
  initializeTimeoutMs: ms(10_000).description('Bound in ms on a server\'s initialize and on each tools/list page; a server that does not answer counts as a failure.'),
  callTimeoutMs: ms(60_000).description('Bound in ms on one upstream call without progress (progress resets it, up to 10 times the bound in all); then the call ends TIMEOUT and the server is sent notifications/cancelled.'),
  maxFailures: Schema.natural().default(3).description('Restarts (with backoff) after a server exits or fails to start; one failure more and its tools leave (mcp-servers/exited) until a reload. A server that ran 30 s counts afresh.'),
  restartBackoffMs: ms(500).description('Delay in ms before the first restart; each next one doubles, up to 30 s.'),
  maxMessageBytes: Schema.natural().min(1024).default(16 * 1024 * 1024).description('Most bytes of one message from a stdio server; a larger one ends the server (its calls fail naming this key) and it is restarted.'),
  maxResultBytes: Schema.natural().min(1).default(4 * 1024 * 1024).description('Most bytes of a result\'s content and structured value; a larger result is an error naming this key, not a truncated success.'),
  stderrTailBytes: Schema.natural().min(256).default(8 * 1024).description('Bytes of a server\'s stderr kept, shown in the errors of its calls.'),
  maxNotificationsPerSecond: Schema.natural().min(1).default(200).description('Notifications a server may send in one second; past it the server is cut off as a flood and restarted.'),
  idleTimeoutMs: Schema.natural().max(2_147_483_647).default(0).description('A stdio server with no call running for this many ms is stopped (its process ended, its tools kept) and started again by the next call; 0 keeps it running. Not a failure: it never counts towards maxFailures.'),
}) as Schema<Config>

const STDIO_KEYS = new Set(['command', 'args', 'env', 'cwd', 'sandbox'])
const HTTP_KEYS = new Set(['url', 'headers'])
const SANDBOX_KEYS = new Set(['mode', 'network'])
const NETWORK_KEYS = new Set(['allow', 'deny'])

/** Why an inline server's config is wrong (an unknown key, both kinds at once), with its key path; undefined when it is right. */
export function serverConfigProblem(name: string, config: ServerConfig): string | undefined {
  const at = `servers.${name}`
  const keys = Object.keys(config)
  if ('url' in config && 'command' in config) return `${at}: give either command (a stdio server) or url (an HTTP server), not both`
  const allowed = isHttp(config) ? HTTP_KEYS : STDIO_KEYS
  for (const key of keys) if (!allowed.has(key)) return `${at}.${key} is not a key of ${isHttp(config) ? 'an HTTP' : 'a stdio'} server (keys: ${[...allowed].join(', ')})`
  if (!isHttp(config) && config.sandbox) {
    for (const key of Object.keys(config.sandbox)) if (!SANDBOX_KEYS.has(key)) return `${at}.sandbox.${key} is not a key of a server's sandbox (keys: mode, network)`
    const network = config.sandbox.network
    if (network && typeof network === 'object') for (const key of Object.keys(network)) if (!NETWORK_KEYS.has(key)) return `${at}.sandbox.network.${key} is not a key of a server's network (keys: allow, deny)`
  }
  return undefined
}
