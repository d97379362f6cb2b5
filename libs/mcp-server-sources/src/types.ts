/** The shapes shared with `@dsh/mcp-servers` (DESIGN §16.3): what a source gives, and what it got wrong. */

export type SourceName = 'mcp.json' | 'claude-code' | 'codex'

export type ServerNetwork = 'off' | 'on' | { allow?: string[]; deny?: string[] }

export type StdioServerConfig = { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; sandbox?: { mode?: string; network?: ServerNetwork } }
export type HttpServerConfig = { url: string; headers?: Record<string, string> }
export type ServerConfig = StdioServerConfig | HttpServerConfig

/** Something a source holds that dsh cannot use: the file (and line), the server, and why. */
export interface SourceProblem {
  source: SourceName
  file: string
  server?: string
  line?: number
  message: string
}

export interface ReadSourcesOptions {
  /** the project directory (`.mcp.json`, and Claude Code's `projects[<cwd>]`) */
  cwd: string
  /** default: the user's home directory */
  home?: string
  /** the variables `${VAR}` expands from, and CLAUDE_CONFIG_DIR / CODEX_HOME; default: process.env */
  env?: Record<string, string | undefined>
}

export interface SourcedServer {
  config: ServerConfig
  source: SourceName
  file: string
}

export interface SourceServers {
  servers: Record<string, SourcedServer>
  problems: SourceProblem[]
}

/** One server entry as a source read it, before it is checked. */
export interface RawServer {
  name: string
  entry: unknown
  file: string
  line?: number
}

/** The server dsh setup writes into each client: dsh itself, never an upstream of dsh. */
export const DSH_SERVER_NAME = 'dsh'
