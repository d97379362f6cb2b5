/**
 * Claude Code's permission modes and Codex's approval policies (presets).
 */
export const MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'] as const
export type PermissionMode = typeof MODES[number]

export const PRESETS = ['untrusted', 'on-request', 'on-failure', 'never'] as const
export type Preset = typeof PRESETS[number]

export function isMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (MODES as readonly string[]).includes(value)
}
