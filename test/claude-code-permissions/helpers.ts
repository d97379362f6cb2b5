/**
 * Shared set-up for the claude-code-permissions specs: a rule set compiled
 * from inline permissions, and a decider over it with the real shell parser.
 */
import { compileRuleSet, decide, INLINE, type InlinePermissions, type Outcome, type PermissionMode, type Preset } from '@dsh/claude-code-permissions'
import type { JsonObject } from '@dsh/kernel'

export const WORKSPACE = '/work/project'
export const HOME = '/home/user'

/** dsh's tool behind each Claude Code name, as the plugin passes it (so `mcp__dsh__<tool>` rules apply) */
export const DSH_NAME: Readonly<Record<string, string>> = { Bash: 'bash', Read: 'read', Write: 'write', Edit: 'edit', Grep: 'grep', Glob: 'glob', LS: 'ls', WebFetch: 'web_fetch' }

export interface Decider {
  (tool: string, args: JsonObject): Outcome
  bash(command: string, extra?: JsonObject): Outcome
}

export function decider(permissions: InlinePermissions, options: { mode?: PermissionMode; preset?: Preset; readOnly?: boolean; workspace?: string; root?: string } = {}): Decider {
  const workspace = options.workspace ?? WORKSPACE
  const set = compileRuleSet([{ source: INLINE, root: options.root ?? workspace, permissions }], { workspace, home: HOME, extraTools: new Set() })
  const run = (tool: string, args: JsonObject) =>
    decide({ tool, name: Object.hasOwn(DSH_NAME, tool) ? DSH_NAME[tool] : tool, args, readOnly: options.readOnly ?? false }, { set, mode: options.mode ?? set.defaultMode?.mode ?? 'default', preset: options.preset, workspace, directories: [workspace, ...set.additionalDirectories] })
  return Object.assign(run, { bash: (command: string, extra: JsonObject = {}) => run('Bash', { command, ...extra }) })
}

export function decisionOf(outcome: Outcome): string {
  return outcome.decision
}
