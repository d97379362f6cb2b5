/** Where each client keeps its servers; the variables that move them (CLAUDE_CONFIG_DIR, CODEX_HOME) as each client reads them. */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { ReadSourcesOptions } from './types.js'

export interface SourceFiles {
  project: string
  /** the project's `.mcp.json` */
  mcpJson: string
  /** Claude Code's `~/.claude.json` (user servers, and each project's under `projects[<path>]`) */
  claudeState: string
  /** Codex's `config.toml` */
  codexConfig: string
}

export function sourceFiles(options: ReadSourcesOptions): SourceFiles {
  const env = options.env ?? process.env
  const home = resolve(options.home ?? homedir())
  const project = resolve(options.cwd)
  return {
    project,
    mcpJson: join(project, '.mcp.json'),
    claudeState: env.CLAUDE_CONFIG_DIR ? join(resolve(env.CLAUDE_CONFIG_DIR), '.claude.json') : join(home, '.claude.json'),
    codexConfig: join(env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(home, '.codex'), 'config.toml'),
  }
}
