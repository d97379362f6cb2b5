/**
 * Shapes shared by the parser, the runner and the dispatcher.
 */

export type OnError = 'deny' | 'ignore'

/** The hook events this plugin runs. Every other event in a settings file is ignored. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'Notification', 'SessionStart', 'SessionEnd'] as const
export type HookEvent = typeof HOOK_EVENTS[number]

/**
 * Events that only inform: their hooks decide nothing (a failure is recorded,
 * never a denial), and they may be `async` since nobody waits for an answer.
 */
export const NOTICE_EVENTS: ReadonlySet<HookEvent> = new Set(['Notification', 'SessionStart', 'SessionEnd'])

/** Where hooks come from: Claude Code's settings shape or Codex's hooks.json (same shape, its own keys). */
export type SourceKind = 'claude' | 'codex'

/**
 * A matcher compiled from a settings file. It tests the hook-visible tool name,
 * or for Notification the notification type, SessionStart the source and
 * SessionEnd the reason, as Claude Code's matchers do.
 */
export type Matcher = (value: string) => boolean

/** One command hook, as read from a settings file or the inline config. */
export interface HookSpec {
  event: HookEvent
  /** the matcher as written (`undefined` when absent) */
  matcherText?: string
  matcher: Matcher
  command: string
  /** seconds; absent = the plugin's default */
  timeout?: number
  onError?: OnError
  /** the file it came from, or the inline config */
  source: string
  /** its JSON path inside the source, e.g. `hooks.PreToolUse[0].hooks[1]` */
  path: string
}

/** What one hook said, once its run is interpreted. */
export type Verdict =
  | { kind: 'allow' | 'none' }
  /** `command`: the hook that decided (absent for a refusal of the settings themselves) */
  | { kind: 'deny' | 'ask' | 'block'; reason: string; command?: string }
  /** no answer: could not start, 126/127, killed, timed out, malformed output */
  | { kind: 'no-answer'; reason: string }
