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
  servers: Schema.dict(Schema.union([stdio, http])).default({}).description('upstream servers by name'),
  sources: Schema.array(Schema.union(SOURCE_NAMES.map((s) => Schema.const(s)))).default([])
    .description('client configurations to read more servers from: the project\'s .mcp.json, Claude Code\'s, Codex\'s'),
  exclude: Schema.array(String).default([]).description('server names to leave out (from servers and sources)'),
  start: Schema.union([Schema.const('eager'), Schema.const('lazy')]).default('eager'),
  initializeTimeoutMs: ms(10_000),
  callTimeoutMs: ms(60_000),
  maxFailures: Schema.natural().default(3),
  restartBackoffMs: ms(500),
  maxMessageBytes: Schema.natural().min(1024).default(16 * 1024 * 1024),
  maxResultBytes: Schema.natural().min(1).default(4 * 1024 * 1024),
  stderrTailBytes: Schema.natural().min(256).default(8 * 1024),
  maxNotificationsPerSecond: Schema.natural().min(1).default(200),
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
