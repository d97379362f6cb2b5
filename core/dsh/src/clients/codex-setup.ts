/**
 * `dsh setup codex`: Codex's user config (`$CODEX_HOME/config.toml`, `~/.codex/config.toml` by
 * default) — Codex reads a project's `.codex/config.toml` only in a trusted project, so the user
 * file is the one that works everywhere.
 */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { readForEdit, type ConfigFile } from './config-file.js'
import { codexSettings } from './recipe.js'
import { TomlEdit } from './toml-edit.js'

export interface CodexLocation {
  home?: string
  env?: NodeJS.ProcessEnv
}

export function codexHome(location: CodexLocation = {}): string {
  const env = location.env ?? process.env
  return env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(resolve(location.home ?? homedir()), '.codex')
}

export function codexConfigPath(location: CodexLocation = {}): string {
  return join(codexHome(location), 'config.toml')
}

export function codexPlan(location: CodexLocation = {}): ConfigFile[] {
  const path = codexConfigPath(location)
  const before = readForEdit(path)
  const toml = new TomlEdit(before, path)
  for (const { table, key, value } of codexSettings()) toml.set(table, key, value)
  return [{ path, before, after: toml.text, newMode: 0o600 }]
}
