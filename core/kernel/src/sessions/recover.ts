/**
 * Reading a session log back. Every complete line is an event; a last line
 * without its newline (or that does not parse) is a torn write from a crash:
 * it is cut off the file and reported. A bad line in the middle is skipped and
 * reported, never fatal, and the lines after it are kept. Read-only readers
 * (`dsh sessions`) pass `repair: false` and leave the file as it is.
 */
import { lstatSync, readFileSync, truncateSync } from 'node:fs'
import { KernelError } from '../errors.js'
import type { SessionEvent } from './events.js'

export interface Recovery {
  events: SessionEvent[]
  /** the size of each event's line in UTF-8 bytes, its newline included (in the order of `events`) */
  lineBytes: number[]
  /** bytes cut off the end of the file (a torn last line) */
  droppedBytes: number
  /** 1-based numbers of lines that did not parse */
  badLines: number[]
  reason?: string
}

function parse(line: string): SessionEvent | undefined {
  try {
    const event = JSON.parse(line)
    if (event && typeof event === 'object' && typeof event.seq === 'number' && typeof event.type === 'string') return event
  } catch {}
}

export interface RecoverOptions {
  /** cut a torn last line off the file (default true; a reader that must not change the log passes false) */
  repair?: boolean
}

export function recover(path: string, options: RecoverOptions = {}): Recovery {
  const result: Recovery = { events: [], lineBytes: [], droppedBytes: 0, badLines: [] }
  let stat
  try {
    stat = lstatSync(path)
  } catch {
    return result
  }
  // an audit log must be a real file: a symlink to a device would lose or fake it
  if (!stat.isFile()) throw new KernelError('SESSION_WRITE_FAILED', `session log ${path} exists but is not a regular file`)
  const text = readFileSync(path)
  let start = 0
  let lineNo = 0
  while (start < text.length) {
    const end = text.indexOf(0x0a, start)
    lineNo++
    if (end === -1) {
      // no newline: the write of this line never completed
      result.droppedBytes = text.length - start
      result.reason = `torn last line ${lineNo} (${result.droppedBytes} bytes without a newline)`
      if (options.repair !== false) truncateSync(path, start)
      break
    }
    const line = text.subarray(start, end).toString('utf8')
    const event = line.trim() ? parse(line) : undefined
    if (event) {
      result.events.push(event)
      result.lineBytes.push(end + 1 - start)
    }
    else if (line.trim()) result.badLines.push(lineNo)
    start = end + 1
  }
  if (result.badLines.length) {
    const bad = `unparsable line(s) ${result.badLines.join(', ')} skipped`
    result.reason = result.reason ? `${result.reason}; ${bad}` : bad
  }
  return result
}
