/**
 * The configuration of claude-code-permissions (DESIGN §15.3). Inline
 * `permissions` are checked by the same compiler as the settings files, so a
 * bad inline rule fails when the config is validated, naming its index.
 */
import { homedir } from 'node:os'
import Schema from 'schemastery'
import { MODES, PRESETS, type PermissionMode, type Preset } from './modes.js'
import { compileRuleSet, INLINE } from './ruleset.js'

export interface InlinePermissions {
  allow?: string[]
  ask?: string[]
  deny?: string[]
  defaultMode?: PermissionMode
  additionalDirectories?: string[]
}

export interface Config {
  /** Claude Code settings files (default: managed, `<home>/.claude/settings.json`, `<workspace>/.claude/settings.json`, `<workspace>/.claude/settings.local.json`) */
  settingsFiles?: string[]
  /** rules in Claude Code's `permissions` shape, merged with the files */
  permissions?: InlinePermissions
  defaultMode?: PermissionMode
  /** Codex's approval policies */
  preset?: Preset
  /** default: the sandbox service's workspace */
  workspace?: string
  /** default: the user's home */
  home?: string
  /** our tool name → the name rules see, over the built-in table */
  toolNames: Record<string, string>
}

export const Config: Schema<Config> = Schema.object({
  // a union with undefined: schemastery fills a bare array with [], and [] must mean "no files", not the default ones
  settingsFiles: Schema.union([Schema.array(Schema.string()), Schema.const(undefined)])
    .description('Claude Code settings files to read permissions from (relative ones from the workspace). Default: the managed file for the platform, ~/.claude/settings.json, <workspace>/.claude/settings.json and <workspace>/.claude/settings.local.json.'),
  // checked here so a bad rule fails config validation; kept as written (cordis applies a
  // plugin's Config again when plugging it, so the value must pass through unchanged)
  permissions: Schema.transform(Schema.any(), (value) => {
    if (value !== undefined) compileRuleSet([{ source: INLINE, root: process.cwd(), permissions: value }], { workspace: process.cwd(), home: homedir(), extraTools: new Set() })
    return value
  }).description('Rules in Claude Code\'s permissions shape ({ allow, ask, deny, defaultMode, additionalDirectories }), merged with the settings files.'),
  defaultMode: Schema.union([...MODES]).description('The permission mode when the inline permissions set none; over the settings files\' defaultMode.'),
  preset: Schema.union([...PRESETS]).description('A Codex approval policy: untrusted, on-request, on-failure or never.'),
  workspace: Schema.string().description('The workspace: ./ and bare rule paths start here. Default: the sandbox service\'s workspace.'),
  home: Schema.string().description('The home directory for ~/ rule paths and the user settings file. Default: the user\'s home.'),
  toolNames: Schema.dict(Schema.string().min(1)).default({})
    .description('Our tool name → the tool name rules see, over the built-in table (bash → Bash, read → Read, …). Rules for mcp__dsh__<our name> and mcp__dsh apply too; a bare built-in name ("Bash", "Read") is about the client\'s own tool and decides none of ours.'),
}) as Schema<Config>
