/**
 * Fixed limits of the hook runner.
 */
import { MAX_TIMER_MS } from '@dsh/kernel'

/** The longest timer Node honours, in seconds. */
export const MAX_TIMEOUT_SECONDS = Math.floor(MAX_TIMER_MS / 1000)

/** From SIGTERM to SIGKILL when a hook is ended: a hook has no launcher of its own to reap for. */
export const KILL_GRACE_MS = 250

/**
 * After a hook's processes are killed, how long to wait for its output
 * pipes to close before giving up on them (a process that left the group with
 * `setsid` can hold them open forever).
 */
export const PIPE_GRACE_MS = 250

/** How long a settings-file change settles before the watcher reloads. */
export const RELOAD_DEBOUNCE_MS = 50

/** The longest reason text a hook can put into a tool result. */
export const MAX_REASON_CHARS = 8192

/**
 * What a session's SessionEnd hooks share when it ends (Claude Code's
 * budget): past it they are killed with their process groups, so a hook at
 * the 600 s default timeout cannot hold `dsh mcp` shutdown.
 */
export const SESSION_END_BUDGET_MS = 1_500

/** The most a matching SessionEnd hook's own `timeout` raises that budget to. */
export const SESSION_END_MAX_MS = 60_000
