/**
 * What the terminal shows of a request. Arguments come from the model, so
 * they are hostile: long values are cut with a visible marker, and control,
 * C1 and bidirectional characters are shown as escapes so they cannot move the
 * cursor, recolour the prompt or reorder what the user reads.
 */
import type { JsonValue } from '@dsh/kernel'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { describeModeGrant } from '@dsh/tools'

export interface FormatLimits {
  /** longest string value shown in full (default 200 characters) */
  maxValueChars: number
  /** most array items or object keys shown per level (default 20) */
  maxItems: number
  /** deepest level shown (default 6) */
  maxDepth: number
  /** most lines of pretty JSON shown (default 40) */
  maxLines: number
}

export const defaultLimits: FormatLimits = { maxValueChars: 200, maxItems: 20, maxDepth: 6, maxLines: 40 }

// C0 except newline, DEL, C1, and the bidi/directional marks and overrides
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** Show unsafe characters as `\u{…}` escapes; newlines stay when `multiline`. */
export function sanitize(text: string, multiline = false): string {
  const safe = text.replace(UNSAFE, (c) => `\\u{${c.codePointAt(0)!.toString(16).padStart(4, '0')}}`)
  return multiline ? safe : safe.replace(/\n/g, '\\n')
}

const marker = (count: number, what: string) => `…[cut ${count} more ${what}]`

function cutString(value: string, max: number): string {
  if (value.length <= max) return value
  let head = value.slice(0, max)
  // do not leave half a surrogate pair behind
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1)
  return head + marker(value.length - head.length, 'chars')
}

/** A copy of `value` with long strings, arrays, objects and deep nesting cut, each with a marker. */
export function cutValue(value: JsonValue, limits: FormatLimits = defaultLimits, depth = 0): JsonValue {
  if (typeof value === 'string') return cutString(value, limits.maxValueChars)
  if (value === null || typeof value !== 'object') return value
  if (depth >= limits.maxDepth) return marker(Array.isArray(value) ? value.length : Object.keys(value).length, 'nested values')
  if (Array.isArray(value)) {
    const shown = value.slice(0, limits.maxItems).map((item) => cutValue(item, limits, depth + 1))
    if (value.length > limits.maxItems) shown.push(marker(value.length - limits.maxItems, 'items'))
    return shown
  }
  const keys = Object.keys(value)
  const out: { [key: string]: JsonValue } = {}
  for (const key of keys.slice(0, limits.maxItems)) {
    Object.defineProperty(out, cutString(key, limits.maxValueChars), {
      value: cutValue(value[key], limits, depth + 1), enumerable: true, writable: true, configurable: true,
    })
  }
  if (keys.length > limits.maxItems) out['…'] = marker(keys.length - limits.maxItems, 'keys')
  return out
}

/** Pretty JSON of the arguments, cut to the limits, safe to print. */
export function prettyArguments(args: JsonValue, limits: FormatLimits = defaultLimits): string {
  const lines = sanitize(JSON.stringify(cutValue(args, limits), null, 2), true).split('\n')
  if (lines.length <= limits.maxLines) return lines.join('\n')
  return [...lines.slice(0, limits.maxLines), marker(lines.length - limits.maxLines, 'lines')].join('\n')
}

/** The text of the box shown above the choice. */
export function describeRequest(request: ApprovalRequestEvent, limits: FormatLimits = defaultLimits): string {
  const { exec } = request
  const rows = [
    `Tool:     ${sanitize(cutString(String(exec.name), limits.maxValueChars))}`,
    `Sandbox:  ${request.sandboxMode ? `${request.sandboxMode} for this call: allowing lets it ${describeModeGrant(request.sandboxMode)}` : "the session's mode"}`,
    `Reason:   ${request.reason ? sanitize(cutString(request.reason, limits.maxValueChars * 2)) : '(none given)'}`,
  ]
  if (exec.parent) rows.push(`From:     run_code call ${sanitize(String(exec.parent.callId))}`)
  rows.push('Arguments:', prettyArguments(exec.arguments as JsonValue, limits))
  return rows.join('\n')
}
