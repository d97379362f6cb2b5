/**
 * read {file_path, offset?, limit?}: a text file as numbered lines, like
 * Claude Code's Read (offset is the first line, 1-based; limit the number of
 * lines; at most 2000 lines, 2000 characters a line and maxReadOutputBytes together).
 */
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import { checkNotLinkedToDenied, readableTarget } from '../area.js'
import type { Config } from '../config.js'
import { PathRefused } from '../paths.js'
import { READ, readFd, withFd } from './files.js'
import { NOTES_SCHEMA, withNotes } from './notes.js'

const DEFAULT_LINES = 2000
const MAX_LINE = 2000

const LINE_CUT = '… [line truncated]'

/**
 * The lines from `start` a read returns: at most `limit`, each cut at MAX_LINE characters, and
 * (after the first) no more than `maxBytes` UTF-8 bytes together, so that a client's own limit on
 * a tool's output (Claude Code keeps about 50,000 characters inline) does not swallow the result.
 */
function pickLines(lines: readonly string[], start: number, limit: number, maxBytes: number): { shown: string[]; cut: number } {
  const shown: string[] = []
  let bytes = 0
  let cut = 0
  for (let i = start; i < lines.length && shown.length < limit; i++) {
    const whole = lines[i]
    const line = whole.length > MAX_LINE ? `${whole.slice(0, MAX_LINE)}${LINE_CUT}` : whole
    bytes += Buffer.byteLength(line) + 1
    if (shown.length && bytes > maxBytes) break
    if (line !== whole) cut++
    shown.push(line)
  }
  return { shown, cut }
}

interface Args {
  file_path: string
  offset?: number
  limit?: number
}

export function readTool(ctx: Context, config: Config): ToolDefinition<Args & Record<string, any>> {
  const sandbox = ctx.sandbox
  return {
    name: 'read',
    title: 'Read file',
    description: 'Read a text file in the workspace. Returns numbered lines (cat -n style). offset is the first line to read (1-based), limit the number of lines.',
    parameters: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'The file to read (absolute, or relative to the workspace)' },
        offset: { type: 'integer', minimum: 1, description: 'The line to start at (1-based)' },
        limit: { type: 'integer', minimum: 1, description: 'How many lines to read (default 2000)' },
      },
      required: ['file_path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    outputSchema: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'the file read (its real path)' },
        content: { type: 'string', description: 'the lines read, without numbers (a line over 2000 characters cut, as in the text)' },
        startLine: { type: 'integer', minimum: 1 },
        numLines: { type: 'integer', minimum: 0 },
        totalLines: { type: 'integer', minimum: 0 },
        notes: NOTES_SCHEMA,
      },
      required: ['file_path', 'content', 'startLine', 'numLines', 'totalLines'],
      additionalProperties: false,
    },
    concurrency: 'parallel',
    prompt: 'read: open files with read rather than cat; it shows line numbers, which edit\'s old_string must not include. Large files: pass offset and limit.',
    execute(args, call) {
      const target = readableTarget(sandbox, config, call, args.file_path, 'file_path')
      const data = withFd(target.real, READ, (fd) => {
        checkNotLinkedToDenied(target.area, fd, args.file_path)
        return readFd(fd, args.file_path, config.maxReadBytes)
      })
      if (data.subarray(0, 8192).includes(0)) throw new PathRefused(`${args.file_path} is a binary file`)
      const lines = data.toString('utf8').split('\n')
      if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
      const start = (args.offset ?? 1) - 1
      const { shown, cut } = pickLines(lines, start, args.limit ?? DEFAULT_LINES, config.maxReadOutputBytes)
      const text = shown.map((line, i) => `${String(start + i + 1).padStart(6)}\t${line}`).join('\n')
      const notes: string[] = []
      if (cut) notes.push(`[${cut} long line${cut === 1 ? '' : 's'} cut at ${MAX_LINE} characters]`)
      const next = start + shown.length
      if (shown.length && next < lines.length) {
        const budget = shown.length < (args.limit ?? DEFAULT_LINES) ? ` (workspace-tools maxReadOutputBytes, ${config.maxReadOutputBytes} bytes, reached)` : ''
        notes.push(`[${lines.length - next} more lines${budget}; read on with offset ${next + 1}]`)
      }
      return {
        content: shown.length ? [text, ...notes].join('\n') : `[${args.file_path} has ${lines.length} lines; nothing at offset ${start + 1}]`,
        value: withNotes({ file_path: target.real, content: shown.join('\n'), startLine: start + 1, numLines: shown.length, totalLines: lines.length }, notes),
      }
    },
  }
}
