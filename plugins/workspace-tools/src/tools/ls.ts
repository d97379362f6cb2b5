/**
 * ls {path}: the entries of a directory, directories with a trailing `/`,
 * symbolic links with their target; entries the read policy refuses are
 * left out and counted.
 */
import { readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import { deniedBy } from '@dsh/sandbox'
import { readableTarget } from '../area.js'
import type { Config } from '../config.js'
import { viaFd } from '../paths.js'
import { DIRECTORY, withFd } from './files.js'
import { NOTES_SCHEMA, withNotes } from './notes.js'

const MAX_ENTRIES = 1000

type Kind = 'directory' | 'file' | 'symlink' | 'other'

export function lsTool(ctx: Context, config: Config): ToolDefinition<{ path: string }> {
  const sandbox = ctx.sandbox
  return {
    name: 'ls',
    title: 'List directory',
    description: 'List a directory in the workspace: one entry a line, directories end with /, symbolic links show their target.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'The directory (absolute, or relative to the workspace)' } },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    outputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'the directory listed (its real path)' },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, type: { enum: ['directory', 'file', 'symlink', 'other'] }, target: { type: 'string' } },
            required: ['name', 'type'],
            additionalProperties: false,
          },
        },
        notes: NOTES_SCHEMA,
      },
      required: ['path', 'entries'],
      additionalProperties: false,
    },
    concurrency: 'parallel',
    prompt: 'ls: list a directory before reading or writing in it.',
    execute(args, call) {
      const target = readableTarget(sandbox, config, call, args.path, 'path')
      const entries = withFd(target.real, DIRECTORY, (fd) =>
        // Why through the fd: the listing is of the directory that was checked, not of what the path names now
        readdirSync(viaFd(fd, target.real), { withFileTypes: true }).map((d) => {
          const kind: Kind = d.isDirectory() ? 'directory' : d.isFile() ? 'file' : d.isSymbolicLink() ? 'symlink' : 'other'
          const entry: { name: string; type: Kind; target?: string } = { name: d.name, type: kind }
          if (kind === 'symlink') {
            try {
              entry.target = readlinkSync(join(target.real, d.name))
            } catch {}
          }
          return entry
        }))
      // Why left out: a name the read policy hides (`.env` under a Read deny, the session log) is not the model's to see, as in grep and glob
      const visible = target.area.mode === 'danger-full-access' ? entries : entries.filter((e) => !deniedBy(target.area.read, join(target.real, e.name)))
      visible.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      const shown = visible.slice(0, MAX_ENTRIES)
      const lines = shown.map((e) => e.type === 'directory' ? `${e.name}/` : e.type === 'symlink' ? `${e.name} -> ${e.target ?? '?'}` : e.name)
      const notes: string[] = []
      if (visible.length > shown.length) notes.push(`[${visible.length - shown.length} more entries]`)
      if (visible.length < entries.length) notes.push(`[${entries.length - visible.length} entries the read policy refuses are not shown]`)
      lines.push(...notes)
      return { content: lines.length ? lines.join('\n') : '[empty directory]', value: withNotes({ path: target.real, entries: shown }, notes) }
    },
  }
}
