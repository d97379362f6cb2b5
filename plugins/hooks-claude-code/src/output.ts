/** What a finished hook said, by the protocol Claude Code documents, since a decision we cannot read must never pass as no decision (the protocol: the plugin's README). */
import { constants } from 'node:os'
import { MAX_REASON_CHARS } from './limits.js'
import type { LaunchOutcome } from './launch.js'
import { NOTICE_EVENTS, type HookEvent, type Verdict } from './types.js'

type Json = Record<string, unknown>

const RANK: Record<Verdict['kind'], number> = { 'none': 0, 'allow': 1, 'ask': 2, 'deny': 3, 'block': 3, 'no-answer': 4 }

function clip(text: string): string {
  const trimmed = text.trim()
  return trimmed.length > MAX_REASON_CHARS ? `${trimmed.slice(0, MAX_REASON_CHARS)}… (cut)` : trimmed
}

function reasonOf(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() ? clip(value) : fallback
}

type Parsed = { kind: 'text' } | { kind: 'json'; value: Json } | { kind: 'malformed'; reason: string }

/** Classify a hook's stdout: plain text, one JSON object, or a malformed attempt at one. */
export function parseStdout(stdout: string): Parsed {
  const trimmed = stdout.trim()
  if (!trimmed.startsWith('{')) {
    // text first, then a line that opens an object: a decision we would silently drop
    if (/^\s*\{/m.test(trimmed)) return { kind: 'malformed', reason: 'stdout has text before a JSON object; the whole stdout must be the JSON object' }
    return { kind: 'text' }
  }
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch (error) {
    return { kind: 'malformed', reason: `stdout is not a valid JSON object: ${(error as Error).message}` }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { kind: 'malformed', reason: 'stdout is not a JSON object' }
  return { kind: 'json', value: value as Json }
}

function field(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

function strictest(a: Verdict, b: Verdict): Verdict {
  return RANK[b.kind] > RANK[a.kind] ? b : a
}

/** The decision of one JSON answer, or why it is malformed. */
function decide(json: Json, event: HookEvent, label: string): Verdict {
  const malformed = (why: string): Verdict => ({ kind: 'no-answer', reason: `${label} printed malformed JSON: ${why}` })
  if (event === 'PermissionRequest') return permissionVerdict(json, label)
  const pre = event === 'PreToolUse'
  let verdict: Verdict = { kind: 'none' }

  const go = field(json, 'continue')
  if (go !== undefined && typeof go !== 'boolean') return malformed('"continue" must be a boolean')
  if (go === false) {
    const reason = reasonOf(field(json, 'stopReason'), `${label} stopped processing (continue: false)`)
    verdict = strictest(verdict, { kind: pre ? 'deny' : 'block', reason })
  }

  const specific = field(json, 'hookSpecificOutput')
  if (specific !== undefined) {
    if (!specific || typeof specific !== 'object' || Array.isArray(specific)) return malformed('"hookSpecificOutput" must be an object')
    const output = specific as Json
    const name = field(output, 'hookEventName')
    if (name !== undefined && name !== event) return malformed(`"hookSpecificOutput.hookEventName" is ${JSON.stringify(name)} in a ${event} hook`)
    if (pre) {
      if (field(output, 'updatedInput') !== undefined) {
        verdict = strictest(verdict, { kind: 'deny', reason: `${label} asked to rewrite the tool input (updatedInput), which is not supported: arguments are never rewritten after they are logged` })
      }
      const permission = field(output, 'permissionDecision')
      const reason = field(output, 'permissionDecisionReason')
      if (permission === 'deny') verdict = strictest(verdict, { kind: 'deny', reason: reasonOf(reason, `denied by ${label}`) })
      // `defer` hands the call to someone else to decide: here that is the approval path
      else if (permission === 'ask' || permission === 'defer') verdict = strictest(verdict, { kind: 'ask', reason: reasonOf(reason, `${label} asks for approval`) })
      else if (permission === 'allow') verdict = strictest(verdict, { kind: 'allow' })
      else if (permission !== undefined) return malformed(`"permissionDecision" must be allow, deny or ask, got ${JSON.stringify(permission)}`)
    } else {
      for (const key of ['updatedMCPToolOutput', 'updatedToolOutput']) {
        if (field(output, key) === undefined) continue
        // a hook that meant to redact the output must not have the original pass
        verdict = strictest(verdict, { kind: 'block', reason: `${label} asked to replace the tool output (${key}), which is not supported, so the result is withheld` })
      }
    }
  }

  const legacy = field(json, 'decision')
  const legacyReason = field(json, 'reason')
  if (legacy === 'block') verdict = strictest(verdict, { kind: pre ? 'deny' : 'block', reason: reasonOf(legacyReason, `blocked by ${label}`) })
  else if (legacy === 'approve') verdict = strictest(verdict, pre ? { kind: 'allow' } : { kind: 'none' })
  else if (legacy !== undefined) return malformed(`"decision" must be "approve" or "block", got ${JSON.stringify(legacy)}`)
  return verdict
}

/**
 * A PermissionRequest hook answers an approval with Claude Code's shape,
 * `hookSpecificOutput.decision.behavior` `allow` (approved once) or `deny`
 * (with `message`). Any other shape is no decision — never an allow — and the
 * normal approval path applies; `continue: false` denies. A decision that
 * rewrites the input (`updatedInput`) denies: arguments are never rewritten.
 */
function permissionVerdict(json: Json, label: string): Verdict {
  if (field(json, 'continue') === false) return { kind: 'deny', reason: reasonOf(field(json, 'stopReason'), `${label} stopped processing (continue: false)`) }
  const specific = field(json, 'hookSpecificOutput')
  if (!specific || typeof specific !== 'object' || Array.isArray(specific)) return { kind: 'none' }
  const name = field(specific as Json, 'hookEventName')
  if (name !== undefined && name !== 'PermissionRequest') return { kind: 'none' }
  const decision = field(specific as Json, 'decision')
  if (!decision || typeof decision !== 'object' || Array.isArray(decision)) return { kind: 'none' }
  const behavior = field(decision as Json, 'behavior')
  if (behavior === 'deny') return { kind: 'deny', reason: reasonOf(field(decision as Json, 'message'), `denied by ${label}`) }
  if (behavior !== 'allow') return { kind: 'none' }
  if (field(decision as Json, 'updatedInput') !== undefined) {
    return { kind: 'deny', reason: `${label} asked to rewrite the tool input (updatedInput), which is not supported: arguments are never rewritten after they are logged` }
  }
  return { kind: 'allow' }
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]))

/**
 * The signal that killed the hook: reported by the process itself, or by the
 * `sh -c` in front of it as exit status 128 + N (a script run from `sh -c` is
 * its child, so its death by SIGKILL reaches us as status 137).
 */
export function killingSignal(outcome: LaunchOutcome): string | undefined {
  if (outcome.signal) return outcome.signal
  const code = outcome.exitCode
  if (code !== null && code > 128) return SIGNAL_NAMES.get(code - 128)
}

/** The verdict of one finished hook for `event`; `label` names it in reasons. */
export function interpret(outcome: LaunchOutcome, event: HookEvent, label: string): Verdict {
  if (outcome.failure) return { kind: 'no-answer', reason: `${label} gave no answer: ${outcome.failureMessage ?? outcome.failure}` }
  // whatever it printed before dying is not an answer
  const signal = killingSignal(outcome)
  if (signal) return { kind: 'no-answer', reason: `${label} gave no answer: it was killed by ${signal}` }
  const code = outcome.exitCode
  if (NOTICE_EVENTS.has(event)) return noticeVerdict(outcome, label)
  if (code === 2) {
    const reason = reasonOf(outcome.stderr, `${label} exited with status 2 and wrote no reason to stderr`)
    return { kind: event === 'PreToolUse' || event === 'PermissionRequest' ? 'deny' : 'block', reason }
  }
  const parsed = parseStdout(outcome.stdout)
  if (parsed.kind === 'malformed') return { kind: 'no-answer', reason: `${label} gave no answer: ${parsed.reason}` }
  if (parsed.kind === 'json') return decide(parsed.value, event, label)
  if (code === 126) return { kind: 'no-answer', reason: `${label} gave no answer: its command is not executable (exit 126)` }
  if (code === 127) return { kind: 'no-answer', reason: `${label} gave no answer: its command was not found (exit 127)` }
  // exit 0 or another status without a decision: non-blocking, as documented
  return { kind: 'none' }
}

/**
 * A notice hook (Notification, SessionStart, SessionEnd) decides nothing:
 * whatever it printed or its exit status (2 included) is no decision. Only a
 * run that failed — not found, not executable, malformed JSON — is recorded
 * as giving no answer.
 */
function noticeVerdict(outcome: LaunchOutcome, label: string): Verdict {
  const parsed = parseStdout(outcome.stdout)
  if (parsed.kind === 'malformed') return { kind: 'no-answer', reason: `${label} gave no answer: ${parsed.reason}` }
  if (outcome.exitCode === 126) return { kind: 'no-answer', reason: `${label} gave no answer: its command is not executable (exit 126)` }
  if (outcome.exitCode === 127) return { kind: 'no-answer', reason: `${label} gave no answer: its command was not found (exit 127)` }
  return { kind: 'none' }
}

/**
 * Combine hooks' verdicts (each no-answer already resolved by its `onError`):
 * deny (or block) > ask > allow > none; the reasons of every hook at the
 * winning level are kept.
 */
export function combine(verdicts: readonly Verdict[]): Verdict {
  let top: Verdict = { kind: 'none' }
  for (const verdict of verdicts) top = strictest(top, verdict)
  if (!('reason' in top)) return top
  const same = verdicts.filter((v) => v.kind === top.kind) as Array<{ reason: string; command?: string }>
  const combined = { kind: top.kind, reason: same.map((v) => v.reason).join('; ') } as Verdict & { command?: string }
  // the commands that decided, for the result's error.source
  const commands = same.map((v) => v.command).filter((command): command is string => command !== undefined)
  if (commands.length) combined.command = commands.join('; ')
  return combined
}
