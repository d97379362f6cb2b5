/**
 * Where Claude Code keeps what `dsh setup claude-code` and `dsh doctor claude-code` touch:
 * `~/.claude.json` (the user's and each project's MCP servers, and which projects are trusted),
 * the settings files of each scope, and the project's `.mcp.json`. `CLAUDE_CONFIG_DIR` moves the
 * first two, as it does for Claude Code.
 */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { managedSettingsPath } from '@dsh/claude-code-settings'

export type ClaudeScope = 'user' | 'project' | 'local'

export interface ClaudeLocation {
  home?: string
  project?: string
  env?: NodeJS.ProcessEnv
}

export interface ClaudeFiles {
  project: string
  /** ~/.claude.json */
  state: string
  user: string
  projectSettings: string
  localSettings: string
  managed: string
  mcpJson: string
}

export function claudeFiles(location: ClaudeLocation = {}): ClaudeFiles {
  const env = location.env ?? process.env
  const home = resolve(location.home ?? homedir())
  const project = resolve(location.project ?? process.cwd())
  const configDir = env.CLAUDE_CONFIG_DIR ? resolve(env.CLAUDE_CONFIG_DIR) : undefined
  return {
    project,
    state: configDir ? join(configDir, '.claude.json') : join(home, '.claude.json'),
    user: join(configDir ?? join(home, '.claude'), 'settings.json'),
    projectSettings: join(project, '.claude', 'settings.json'),
    localSettings: join(project, '.claude', 'settings.local.json'),
    managed: managedSettingsPath(),
    mcpJson: join(project, '.mcp.json'),
  }
}
