/**
 * edit {file_path, old_string, new_string, replace_all?}: replace an exact
 * string in a file, like Claude Code's Edit: the string must occur exactly
 * once unless replace_all is set. The same checks as write.
 */
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import type { Config } from '../config.js'
import { PathRefused } from '../paths.js'
import { changeFile, readFd, rewriteFd } from './files.js'

interface Args {
  file_path: string
  old_string: string
  new_string: string
  replace_all?: boolean
}

function count(text: string, needle: string): number {
  let n = 0
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++
  return n
}

export function editTool(ctx: Context, config: Config): ToolDefinition<Args & Record<string, any>> {
  const sandbox = ctx.sandbox
  return {
    name: 'edit',
    title: 'Edit file',
    requiredMode: 'workspace-write',
    description: 'Replace old_string with new_string in a file. old_string must match exactly once, unless replace_all is true.',
    parameters: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'The file to change (absolute, or relative to the workspace)' },
        old_string: { type: 'string', minLength: 1, description: 'The exact text to replace' },
        new_string: { type: 'string', description: 'The text to put in its place' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
      },
      required: ['file_path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
    // replaces text; a second identical call no longer finds old_string (or, with replace_all, may find new matches)
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, replacements: { type: 'integer', minimum: 1 } },
      required: ['file_path', 'replacements'],
      additionalProperties: false,
    },
    concurrency: 'exclusive',
    prompt: 'edit: old_string must match the file exactly (no line-number prefixes from read) and be unique unless replace_all is true. Editing needs the workspace-write sandbox mode.',
    execute(args, call) {
      if (args.old_string === args.new_string) throw new PathRefused('old_string and new_string are the same: nothing to change')
      const { target, result: replaced } = changeFile(sandbox, config, call, args.file_path, { create: false, missing: 'create it with write' }, (fd) => {
        const text = readFd(fd, args.file_path, config.maxReadBytes).toString('utf8')
        const n = count(text, args.old_string)
        if (n === 0) throw new PathRefused(`old_string was not found in ${args.file_path}`)
        if (n > 1 && !args.replace_all) throw new PathRefused(`old_string occurs ${n} times in ${args.file_path}; add context to make it unique or set replace_all`)
        const next = args.replace_all ? text.split(args.old_string).join(args.new_string) : text.replace(args.old_string, () => args.new_string)
        rewriteFd(fd, Buffer.from(next, 'utf8'))
        return args.replace_all ? n : 1
      })
      return { content: `Edited ${target.real}: ${replaced} replacement${replaced === 1 ? '' : 's'}`, value: { file_path: target.real, replacements: replaced } }
    },
  }
}
