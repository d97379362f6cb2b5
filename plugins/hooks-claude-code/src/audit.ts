/**
 * The session events this plugin writes. Every hook invocation appends
 * `hook/invoked` before the hook starts and `hook/result` once it is done;
 * a settings file that cannot be used appends `hook/config-error` (once per
 * session and problem).
 */
import type { SessionEvents } from '@dsh/kernel'
import type { LaunchOutcome } from './launch.js'
import { killingSignal } from './output.js'
import { NOTICE_EVENTS, type HookEvent, type HookSpec, type Verdict } from './types.js'

/** What `hook/invoked` and `hook/result` say of the hook and the call it is about. */
interface HookSubject {
  /** the call the event is about (absent for SessionStart and SessionEnd) */
  callId?: string
  event: HookEvent
  command: string
  /** our tool name, and the name the hook sees (absent with callId) */
  tool?: string
  toolName?: string
  /** what the matcher tested, for the events that are not about a tool: the notification type, source or reason */
  matched?: string
}

declare module '@dsh/kernel' {
  interface SessionEvents {
    'hook/invoked': HookSubject & {
      matcher: string | null
      source: string
      timeoutMs: number
    }
    'hook/result': HookSubject & {
      durationMs: number
      exitCode: number | null
      signal: string | null
      /** set when the hook gave no answer: spawn, launcher, timeout, aborted, output-too-large, malformed output, 126/127 */
      failure?: string
      /** what the hook decided, after its onError for a no-answer (always none for Notification, SessionStart, SessionEnd) */
      decision: 'allow' | 'deny' | 'ask' | 'block' | 'none'
      reason?: string
      stdout: string
      stderr: string
      stdoutBytes: number
      stderrBytes: number
    }
    'hook/config-error': {
      file: string
      message: string
      /** deny: every call is denied until the file is fixed; ignore: the last good hooks run */
      effect: 'deny' | 'ignore'
    }
  }
}

/** At most `max` bytes of `text` (UTF-8), marked when cut. */
export function cut(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text
  const head = Buffer.from(text).subarray(0, max).toString('utf8').replace(/\uFFFD$/, '')
  return `${head}… (${Buffer.byteLength(text) - Buffer.byteLength(head)} bytes cut)`
}

/** The call a hook event is about. */
export interface HookCall {
  callId: string
  /** our tool name */
  tool: string
  /** the name hooks see */
  toolName: string
}

/** Who the event is about: the hook, the call, and for the events not about a tool, what the matcher tested. */
function about(call: HookCall | undefined, spec: HookSpec, matched: string): HookSubject {
  return {
    ...(call ? { callId: call.callId, tool: call.tool, toolName: call.toolName } : {}),
    ...(NOTICE_EVENTS.has(spec.event) ? { matched } : {}),
    event: spec.event,
    command: spec.command,
  }
}

export function invokedEvent(call: HookCall | undefined, spec: HookSpec, matched: string, timeoutMs: number): SessionEvents['hook/invoked'] {
  return {
    ...about(call, spec, matched),
    matcher: spec.matcherText ?? null,
    source: spec.source,
    timeoutMs,
  }
}

export function resultEvent(call: HookCall | undefined, spec: HookSpec, matched: string, outcome: LaunchOutcome, raw: Verdict, decided: Exclude<Verdict['kind'], 'no-answer'>, auditBytes: number) {
  const data: SessionEvents['hook/result'] = {
    ...about(call, spec, matched),
    durationMs: outcome.durationMs,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    decision: decided,
    stdout: cut(outcome.stdout, auditBytes),
    stderr: cut(outcome.stderr, auditBytes),
    stdoutBytes: outcome.stdoutBytes,
    stderrBytes: outcome.stderrBytes,
  }
  if (raw.kind === 'no-answer') data.failure = outcome.failure ?? (killingSignal(outcome) ? 'signal' : outcome.exitCode === 126 || outcome.exitCode === 127 ? `exit-${outcome.exitCode}` : 'malformed-output')
  if ('reason' in raw) data.reason = cut(raw.reason, auditBytes)
  return data
}
