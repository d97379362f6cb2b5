/**
 * The JSON a hook reads on stdin, with Claude Code's field names. The tool's
 * arguments travel only here, as JSON — never on a command line or in the
 * environment, so hostile input cannot reach a shell.
 */
import type { JsonValue, Session } from '@dsh/kernel'
import type { Execution, ToolResult } from '@dsh/tools'
import type { HookEvent } from './types.js'

/** The fields every event's input has. */
export interface CommonInput {
  session_id: string
  /** the session's event log (our transcript) */
  transcript_path: string
  cwd: string
  permission_mode: string
  hook_event_name: HookEvent
}

export interface HookInput extends CommonInput {
  tool_name: string
  tool_input: JsonValue
  tool_use_id: string
  /** PostToolUse: what the tool returned */
  tool_response?: JsonValue
  /** PostToolUseFailure: the error */
  error?: string
  is_interrupt?: boolean
}

/** What hooks see of a result: its value when it has one, else its content blocks. */
function responseOf(result: ToolResult): JsonValue {
  if (result.value !== undefined) return result.value
  return { content: result.content as unknown as JsonValue }
}

export function commonInput(event: HookEvent, session: Session, cwd: string): CommonInput {
  return {
    session_id: session.id,
    transcript_path: session.path,
    cwd,
    // dsh has no Claude Code permission modes; policy decisions are the kernel's
    permission_mode: 'default',
    hook_event_name: event,
  }
}

/** Notification (Claude Code's `permission_prompt` type: an approval waits for a person). */
export interface NotificationInput extends CommonInput {
  message: string
  title: string
  notification_type: 'permission_prompt'
}

/** SessionStart: `source` is `startup` (a new session) or `resume` (one reopened with its events). */
export interface SessionStartInput extends CommonInput {
  source: 'startup' | 'resume'
}

/** Claude Code's SessionEnd reasons; a host's reason outside them is sent as `other`. */
export const SESSION_END_REASONS: ReadonlySet<string> = new Set(['clear', 'logout', 'prompt_input_exit', 'bypass_permissions_disabled', 'other'])

export interface SessionEndInput extends CommonInput {
  reason: string
}

export function hookInput(event: HookEvent, exec: Execution, toolName: string, cwd: string, result?: ToolResult): HookInput {
  const input: HookInput = {
    ...commonInput(event, exec.session, cwd),
    tool_name: toolName,
    tool_input: exec.arguments as JsonValue,
    tool_use_id: exec.callId,
  }
  if (event === 'PostToolUse' && result) input.tool_response = responseOf(result)
  if (event === 'PostToolUseFailure' && result) {
    input.error = result.error ? `${result.error.code}: ${result.error.message}` : 'the tool failed'
    input.is_interrupt = result.error?.code === 'ABORTED'
  }
  return input
}
