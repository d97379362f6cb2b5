/**
 * How `dsh exec` reports a call: the result, then the audit trail (the
 * session events the call appended) as a timeline.
 */
import type { SessionEvent } from '@dsh/kernel'
import { describeSource, type ToolResult } from '@dsh/tools'
import { formatTimeline, type Painter } from './timeline.js'

/** The approval outcome of the call, if it asked: the last `approval/decided` event's outcome. */
export function approvalOutcome(events: readonly SessionEvent[]): { kind: string; reason?: string } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event.type === 'approval/decided') return (event.data as { outcome?: { kind: string; reason?: string } }).outcome
  }
  return undefined
}

const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`

/** A tool's output may hold terminal escapes: show them as text, never send them (tabs and newlines kept). */
function indent(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, hex).split('\n').map((line) => `  ${line}`).join('\n')
}

/** One line of hostile text (a tool name from the command line). */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, hex)
}

export interface ExecReport {
  result: ToolResult
  events: readonly SessionEvent[]
  session: { id: string; path: string }
  /** who could answer an approval request: a terminal prompt, a configured listener, or nobody */
  approver: 'terminal' | 'listener' | 'none'
}

export function formatReport(report: ExecReport, p: Painter): string {
  const { result, events, session } = report
  const lines: string[] = []
  if (result.isError) {
    const source = result.error?.source
    // who decided the failure: the plugin, and its rule, hook or guard
    const by = source ? ` ${p.dim('by')} ${oneLine(describeSource(source))}` : ''
    lines.push(`${p.red('✗')} ${p.bold(oneLine(result.name))} ${p.red(result.error?.code ?? 'ERROR')}${by}`)
  }
  else lines.push(`${p.green('✓')} ${p.bold(oneLine(result.name))}`)
  // the content of an error result carries its message; say it once
  if (result.isError && result.content.length === 0 && result.error?.message) lines.push(indent(result.error.message))
  for (const block of result.content) {
    if (block.type === 'text') lines.push(indent(block.text))
    else if (block.type === 'image') lines.push(p.dim(`  [image ${oneLine(String(block.mimeType))}, ${String(block.data).length} base64 chars]`))
    else lines.push(p.dim(`  [resource ${oneLine(String(block.name))}: ${oneLine(String(block.uri))}]`))
  }
  if (result.value !== undefined) lines.push(`${p.dim('value:')} ${JSON.stringify(result.value)}`)
  const outcome = approvalOutcome(events)
  if (outcome && outcome.kind !== 'approved' && report.approver === 'none') {
    lines.push(p.yellow(`approval: the call needed approval and nobody could answer (stdin is not a terminal and no approval listener is loaded), so it was ${outcome.kind === 'unavailable' ? 'unavailable → denied' : 'denied'}`))
  }
  lines.push('')
  lines.push(`${p.bold('audit trail')} ${p.dim(`(session ${session.id}: ${session.path})`)}`)
  for (const line of formatTimeline(events, p)) lines.push(`  ${line}`)
  return lines.join('\n')
}
