/**
 * Where Claude Code keeps its settings files, and which one wins.
 *
 * Claude Code reads four scopes. From the highest precedence to the lowest:
 * managed (deployed by an administrator, at a fixed path per platform), local
 * (`<project>/.claude/settings.local.json`), project
 * (`<project>/.claude/settings.json`) and user (`~/.claude/settings.json`).
 * Scalar settings (`permissions.defaultMode`) are taken from the highest scope
 * that sets them; arrays (`permissions.allow`, `hooks` groups) merge across
 * scopes.
 */
import { homedir } from 'node:os'
import { join, resolve, win32 } from 'node:path'

export type SettingsScope = 'managed' | 'local' | 'project' | 'user'

export interface SettingsFile {
  scope: SettingsScope
  /** an absolute path */
  file: string
}

/** Claude Code's managed settings file for a platform (`process.platform` by default). */
export function managedSettingsPath(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return '/Library/Application Support/ClaudeCode/managed-settings.json'
  if (platform === 'win32') return win32.join('C:\\Program Files', 'ClaudeCode', 'managed-settings.json')
  // Linux and WSL (and the other Unix systems, which Claude Code treats alike)
  return '/etc/claude-code/managed-settings.json'
}

export interface SettingsLocation {
  /** the project directory: the one holding `.claude/` */
  workspace: string
  /** the user's home (default: `os.homedir()`) */
  home?: string
  platform?: NodeJS.Platform
}

/** The four settings files, highest precedence first. */
export function settingsFiles(location: SettingsLocation): SettingsFile[] {
  const workspace = resolve(location.workspace)
  const home = resolve(location.home ?? homedir())
  return [
    { scope: 'managed', file: managedSettingsPath(location.platform) },
    { scope: 'local', file: join(workspace, '.claude', 'settings.local.json') },
    { scope: 'project', file: join(workspace, '.claude', 'settings.json') },
    { scope: 'user', file: join(home, '.claude', 'settings.json') },
  ]
}

/** The project files only (what hooks-claude-code reads by default), relative to the workspace. */
export const PROJECT_SETTINGS_FILES: readonly string[] = Object.freeze(['.claude/settings.json', '.claude/settings.local.json'])
