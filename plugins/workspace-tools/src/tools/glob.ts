/**
 * glob {pattern, path?}: Claude Code's Glob. The files under `path` (default
 * the workspace) whose path relative to it matches the pattern (picomatch:
 * `*`, `**`, `?`, `[...]`, `{a,b}`; dot files included), newest modification
 * first, at most 100, over the same walk as grep (search/walk.ts). A pattern
 * may start with a directory, absolute or relative: the walk starts there,
 * after the same read checks as `path`. `..` segments are refused.
 */
import { lstatSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import { quoteInput } from '@dsh/kernel'
import { areaFor, readableTarget } from '../area.js'
import type { Config } from '../config.js'
import { PathRefused } from '../paths.js'
import { cutLines, shownPath, walkNotes } from '../search/display.js'
import { picomatch } from '../search/libraries.js'
import { searchLimits, walk } from '../search/walk.js'
import { withNotes } from './notes.js'

/** as Claude Code's Glob */
const MAX_RESULTS = 100

interface Args {
  pattern: string
  path?: string
}

/** Split a pattern into the directory it names before its first glob character and the rest. */
function splitPattern(pattern: string): { base: string; glob: string } {
  if (pattern.split(/[\\/]/).includes('..')) throw new PathRefused(`pattern ${quoteInput(pattern)} has a ".." segment; pass the directory as path instead`)
  const scan = picomatch().scan(pattern)
  if (!scan.isGlob) return { base: '', glob: pattern }
  return { base: scan.base, glob: scan.glob }
}

export function globTool(ctx: Context, config: Config): ToolDefinition<Args & Record<string, any>> {
  const sandbox = ctx.sandbox
  return {
    name: 'glob',
    title: 'Find files by pattern',
    description: `Find files by name pattern ("**/*.ts", "src/**/*.{js,jsx}", "*.json"), newest modification first, at most ${MAX_RESULTS}. Respects .gitignore; skips version-control directories.`,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'The glob pattern, matched against paths relative to path' },
        path: { type: 'string', description: 'The directory to search in (default: the workspace)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    concurrency: 'parallel',
    prompt: 'glob: find files by name with glob rather than find or ls -R in bash; "*.ts" matches only at the top of path, "**/*.ts" at any depth. It sees only what read may open and does not follow symbolic links.',
    async execute(args, call) {
      const area = areaFor(sandbox, config, call)
      const { base, glob } = splitPattern(args.pattern)
      const from = args.path ?? area.workspace
      const dir = base ? (isAbsolute(base) ? base : join(isAbsolute(from) ? from : join(area.workspace, from), base)) : from
      const target = readableTarget(sandbox, config, call, dir, base ? 'pattern' : 'path')
      if (!lstatSync(target.real).isDirectory()) throw new PathRefused(`${dir} is not a directory`)
      const matches = picomatch()(glob, { dot: true })
      const found: Array<{ real: string; mtime: number }> = []
      const stats = await walk(area, target.real, searchLimits(call, config), ({ real }) => {
        if (matches(shownPath(target.real, real))) found.push({ real, mtime: lstatSync(real, { throwIfNoEntry: false })?.mtimeMs ?? 0 })
      })
      found.sort((a, b) => b.mtime - a.mtime || (a.real < b.real ? -1 : a.real > b.real ? 1 : 0))
      const cut = cutLines(found.map((f) => shownPath(area.workspace, f.real)), MAX_RESULTS, config.maxOutputBytes)
      const notes = walkNotes(stats, { omitted: cut.omitted, unit: 'files', timeoutMs: config.searchTimeoutMs, maxFiles: config.maxSearchFiles })
      return {
        content: [cut.lines.length ? cut.lines.join('\n') : 'No files found', ...notes].join('\n'),
        value: withNotes({ filenames: found.slice(0, cut.lines.length).map((f) => f.real), numFiles: found.length, truncated: cut.omitted > 0 || stats.stopped !== undefined || stats.undecodable > 0, filesSearched: stats.files }, notes),
      }
    },
  }
}
