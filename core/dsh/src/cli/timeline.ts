/**
 * Printing a session's events as a readable timeline, coloured on a TTY.
 */
import type { SessionEvent } from '@dsh/kernel'

export interface Painter {
  dim(text: string): string
  bold(text: string): string
  green(text: string): string
  red(text: string): string
  yellow(text: string): string
  cyan(text: string): string
}

const code = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`
const plain = (text: string) => text

export function painter(colour: boolean): Painter {
  if (!colour) return { dim: plain, bold: plain, green: plain, red: plain, yellow: plain, cyan: plain }
  return { dim: code(2, 22), bold: code(1, 22), green: code(32, 39), red: code(31, 39), yellow: code(33, 39), cyan: code(36, 39) }
}

function short(value: unknown, max = 100): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  if (text === undefined) return ''
  // logged values are hostile: show a control character (an escape sequence, a bell) as text, never send it
  // eslint-disable-next-line no-control-regex
  const line = text.replace(/\s+/g, ' ').replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** One line for one event, or undefined for events the timeline skips. */
export function formatEvent(event: SessionEvent, p: Painter, start: number): string | undefined {
  const at = p.dim(`+${String(event.time - start).padStart(4)}ms`)
  const data = event.data as any
  switch (event.type) {
    case 'tool/call':
      return `${at} ${p.cyan('→ call')}   ${p.bold(short(data.name))} ${p.dim(short(data.arguments ?? data.unloggable))}${data.parent ? p.dim(` (inside ${short(data.parent)})`) : ''}`
    case 'tool/result': {
      const text = short((data.content ?? []).map((b: any) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' '))
      const sandbox = data.sandbox
      const facts = sandbox ? p.dim(` [sandbox ${[sandbox.backend, sandbox.enforcement ?? sandbox.mode].filter(Boolean).join(', ')}]`) : ''
      return data.isError
        ? `${at} ${p.red('✗ result')} ${p.bold(short(data.name))} ${p.red(data.error?.code ?? 'ERROR')} ${text}${facts}`
        : `${at} ${p.green('✓ result')} ${p.bold(short(data.name))} ${text}${facts}`
    }
    case 'turn/begin':
    case 'turn/end':
      return undefined
    default:
      return `${at} ${p.yellow('• ' + event.type)} ${p.dim(short(data))}`
  }
}

export function formatTimeline(events: readonly SessionEvent[], p: Painter): string[] {
  const start = events[0]?.time ?? 0
  return events.map((event) => formatEvent(event, p, start)).filter((line): line is string => line !== undefined)
}
