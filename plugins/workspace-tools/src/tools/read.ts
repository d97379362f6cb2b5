/**
 * read {file_path, offset?, limit?}: a text file as numbered lines, like
 * Claude Code's Read (offset is the first line, 1-based; limit the number of
 * lines; at most 2000 lines and 2000 characters a line unless asked).
 */
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import { checkNotLinkedToDenied, readableTarget } from '../area.js'
import type { Config } from '../config.js'
import { PathRefused } from '../paths.js'
import { READ, readFd, withFd } from './files.js'

const DEFAULT_LINES = 2000
const MAX_LINE = 2000

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
        content: { type: 'string', description: 'the lines read, without numbers' },
        startLine: { type: 'integer', minimum: 1 },
        numLines: { type: 'integer', minimum: 0 },
        totalLines: { type: 'integer', minimum: 0 },
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
      const picked = lines.slice(start, start + (args.limit ?? DEFAULT_LINES))
      const text = picked
        .map((line, i) => `${String(start + i + 1).padStart(6)}\t${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… [line truncated]` : line}`)
        .join('\n')
      const more = start + picked.length < lines.length ? `\n[${lines.length - start - picked.length} more lines; read on with offset ${start + picked.length + 1}]` : ''
      return {
        content: picked.length ? text + more : `[${args.file_path} has ${lines.length} lines; nothing at offset ${start + 1}]`,
        value: { file_path: target.real, content: picked.join('\n'), startLine: start + 1, numLines: picked.length, totalLines: lines.length },
      }
    },
  }
}
