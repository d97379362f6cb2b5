/**
 * write {file_path, content}: create or overwrite a file in the writable
 * roots, creating missing directories. Refused in read-only mode, outside the
 * writable roots, inside a protected path, through a symbolic link that
 * leaves them, and through a file with more than one hard link.
 */
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import { areaFor, checkWritable } from '../area.js'
import type { Config } from '../config.js'
import { mkdirChecked, resolveTarget } from '../paths.js'
import { checkSingleLink, rewriteFd, withFd, WRITE_CREATE } from './files.js'

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
      const area = areaFor(sandbox, config, call)
      const target = resolveTarget(area.workspace, args.file_path, 'file_path')
      checkWritable(area, target.real, args.file_path)
      for (const dir of target.missing) mkdirChecked(dir)
      const data = Buffer.from(args.content, 'utf8')
      withFd(target.real, WRITE_CREATE, (fd) => {
        checkSingleLink(fd, args.file_path)
        rewriteFd(fd, data)
      })
      call.record({ sandbox: { backend: 'in-process', mode: area.mode } })
      const verb = target.exists ? 'Wrote' : 'Created'
      return { content: `${verb} ${target.real} (${data.length} bytes)`, value: { file_path: target.real, bytes: data.length, created: !target.exists } }
    },
  }
}
