/**
 * `dsh sessions show`: a session's whole timeline. Every event is printed
 * whole (its data as complete JSON, control characters escaped so a log
 * cannot drive the terminal); a tool call's line ends with the decision on it
 * and the reason — approved and how, denied or unavailable and why, refused
 * before any gate, or allowed — read from the events of the same `callId`.
 */
import type { SessionEvent } from '@dsh/kernel'
import type { Painter } from '../cli/timeline.js'

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** JSON with every control and bidirectional character escaped (JSON.stringify leaves C1 and bidi as they are). */
export function inert(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined'
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

interface CallFacts {
  decided?: { outcome: { kind: string; grant?: string; reason?: string }; by?: string }
  result?: { isError?: boolean; error?: { code?: string; message?: string } }
}

const GATE_CODES = new Set(['DENIED', 'APPROVAL_UNAVAILABLE', 'UNKNOWN_TOOL', 'INVALID_ARGS', 'ABORTED_BEFORE_DISPATCH'])

function factsByCall(events: readonly SessionEvent[]): Map<string, CallFacts> {
  const facts = new Map<string, CallFacts>()
  const of = (callId: unknown) => {
    const id = String(callId)
    let entry = facts.get(id)
    if (!entry) facts.set(id, (entry = {}))
    return entry
  }
  for (const event of events) {
    const data = event.data as any
    if (!data || typeof data !== 'object') continue
    if (event.type === 'approval/decided') of(data.callId).decided = data
    else if (event.type === 'tool/result') of(data.callId).result = data
  }
  return facts
}

/** The decision on a call and its reason, for the call's line. */
export function decisionOf(facts: CallFacts | undefined, p: Painter): string {
  const outcome = facts?.decided?.outcome
  if (outcome?.kind === 'approved') return p.green(`approved (${outcome.grant ?? 'once'}${facts!.decided!.by ? `, by ${facts!.decided!.by}` : ''})`)
  if (outcome) return p.red(`${outcome.kind === 'denied' ? 'denied' : 'approval unavailable'}: ${inert(outcome.reason ?? '')}`)
  const result = facts?.result
  if (!result) return p.yellow('no result in the log')
  const code = result.error?.code
  if (result.isError && code && GATE_CODES.has(code)) return p.red(`refused (${code}): ${inert(result.error?.message ?? '')}`)
  return p.green('allowed')
}

export function formatFullTimeline(events: readonly SessionEvent[], p: Painter): string[] {
  const facts = factsByCall(events)
  const start = events[0]?.time ?? 0
  return events.map((event) => {
    const at = p.dim(`#${event.seq} +${event.time - start}ms`)
    const data = event.data as any
    if (event.type === 'tool/call') {
      const args = data?.arguments !== undefined ? inert(data.arguments) : inert(data?.unloggable ?? null)
      return `${at} ${p.cyan('→ call')} ${p.bold(inert(String(data?.name)))} ${inert(String(data?.callId))} ${args} ⇒ ${decisionOf(facts.get(String(data?.callId)), p)}`
    }
    if (event.type === 'tool/result') {
      const mark = data?.isError ? p.red(`✗ result ${data?.error?.code ?? 'ERROR'}`) : p.green('✓ result')
      return `${at} ${mark} ${p.bold(inert(String(data?.name)))} ${inert(data)}`
    }
    return `${at} ${p.yellow(`• ${inert(event.type)}`)} ${inert(data)}`
  })
}
