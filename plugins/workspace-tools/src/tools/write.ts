/**
 * write {file_path, content}: create or overwrite a file in the writable
 * roots, creating missing directories. Refused in read-only mode, outside the
 * writable roots, inside a protected path, through a symbolic link that
 * leaves them, and through a file with more than one hard link.
 */
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import type { Config } from '../config.js'
import { changeFile, rewriteFd } from './files.js'

export function writeTool(ctx: Context, config: Config): ToolDefinition<{ file_path: string; content: string }> {
  const sandbox = ctx.sandbox
  return {
    name: 'write',
    title: 'Write file',
    requiredMode: 'workspace-write',
    description: 'Write a file in the workspace, replacing it if it exists and creating missing directories.',
    parameters: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'The file to write (absolute, or relative to the workspace)' },
        content: { type: 'string', description: 'The whole new content' },
      },
      required: ['file_path', 'content'],
      additionalProperties: false,
    },
    // replaces what was there; writing the same content again changes nothing more
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    outputSchema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, bytes: { type: 'integer', minimum: 0 }, created: { type: 'boolean' } },
      required: ['file_path', 'bytes', 'created'],
      additionalProperties: false,
    },
    concurrency: 'exclusive',
    prompt: 'write: for new files or complete rewrites; prefer edit for changes to an existing file. Writing needs the workspace-write sandbox mode.',
    execute(args, call) {
      const data = Buffer.from(args.content, 'utf8')
      const { target } = changeFile(sandbox, config, call, args.file_path, { create: true }, (fd) => rewriteFd(fd, data))
      const verb = target.exists ? 'Wrote' : 'Created'
      return { content: `${verb} ${target.real} (${data.length} bytes)`, value: { file_path: target.real, bytes: data.length, created: !target.exists } }
    },
  }
}
