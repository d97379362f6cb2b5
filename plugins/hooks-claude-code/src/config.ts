/**
 * The configuration of hooks-claude-code. Inline `hooks` use Claude Code's
 * settings shape and are checked by the same parser as the settings files, so
 * a bad inline hook fails when the config is validated, naming its JSON path.
 */
import { CLAUDE_TOOL_NAMES, PROJECT_SETTINGS_FILES } from '@dsh/claude-code-settings'
import Schema from 'schemastery'
import { INLINE_SOURCE, parseHooks } from './settings.js'
import type { OnError } from './types.js'
import { MAX_TIMEOUT_SECONDS } from './limits.js'

/** Our tool names → the names hooks see (their input shapes already match Claude Code's). */
export const BUILTIN_TOOL_NAMES: Readonly<Record<string, string>> = CLAUDE_TOOL_NAMES

export interface Config {
  /** hooks in Claude Code's settings shape: `{ PreToolUse: [{ matcher, hooks: [{ type, command, timeout }] }] }` */
  hooks: Record<string, unknown>
  /** Claude Code settings files, relative to the workspace */
  settingsFiles: string[]
  /** Codex hooks.json files, relative to the workspace */
  codexFiles: string[]
  /** what a hook that gives no answer means, unless the hook says otherwise */
  onError: OnError
  /** our tool name → the name hooks see; merged over the built-in table */
  toolNames: Record<string, string>
  /** the project directory: hooks run there with `CLAUDE_PROJECT_DIR` set to it (default: the current directory) */
  workspace?: string
  /** directories besides the workspace that confined commands may write */
  writableRoots: string[]
  /** the timeout of a hook that sets none, in seconds */
  defaultTimeout: number
  /** a hook printing more than this on stdout or stderr gives no answer */
  maxOutputBytes: number
  /** how much of a hook's stdout and stderr the audit events keep */
  auditBytes: number
  /** watch the settings files and reload on change (they are also checked before every call) */
  watch: boolean
}

const seconds = Schema.number().min(0.001).max(MAX_TIMEOUT_SECONDS)

export const Config: Schema<Config> = Schema.object({
  // checked here so a bad hook fails config validation; kept as written (cordis applies a
  // plugin's Config again when plugging it, so the value must pass through unchanged)
  hooks: Schema.transform(Schema.any(), (value) => {
    parseHooks(value ?? {}, INLINE_SOURCE, 'claude')
    return value ?? {}
  }).description('Hooks in Claude Code\'s settings shape (the value of its "hooks" key).'),
  settingsFiles: Schema.array(Schema.string()).default([...PROJECT_SETTINGS_FILES])
    .description('Claude Code settings files to read hooks from, relative to the workspace.'),
  codexFiles: Schema.array(Schema.string()).default(['.codex/hooks.json'])
    .description('Codex hooks.json files to read hooks from, relative to the workspace.'),
  onError: Schema.union(['deny', 'ignore'] as const).default('deny')
    .description('A hook that gives no answer (cannot start, 126/127, killed, timed out, malformed JSON) denies, or is ignored.'),
  toolNames: Schema.dict(Schema.string().min(1)).default({})
    .description('Our tool name → the tool name hooks see, over the built-in table (bash → Bash, ...). A matcher taking mcp__dsh__<our name> takes the tool too; a hook runs once per call.'),
  workspace: Schema.string().description('The project directory (default: the current directory).'),
  writableRoots: Schema.array(Schema.string()).default([])
    .description('Directories besides the workspace that confined commands may write.'),
  defaultTimeout: seconds.default(600).description('Timeout in seconds of a hook that sets none.'),
  maxOutputBytes: Schema.natural().min(1024).default(8 * 1024 * 1024)
    .description('Bytes a hook may print on stdout or stderr before it counts as giving no answer.'),
  auditBytes: Schema.natural().default(4096).description('Bytes of stdout and stderr kept in each hook/result event.'),
  watch: Schema.boolean().default(true).description('Watch the settings files and reload them on change.'),
}) as Schema<Config>
