/**
 * grep {pattern, path?, glob?, type?, output_mode?, -i?, -n?, -A?, -B?, -C?,
 * head_limit?, multiline?}: Claude Code's Grep (ripgrep's options), run in
 * process over the area read may see: the walk of search/walk.ts (no link
 * followed, .gitignore and VCS directories skipped, bounded in files and
 * time), RE2 matching (search/matcher.ts), binary files skipped. Output as
 * ripgrep prints it without a terminal (`path:line:text`, `--` between
 * context groups); files_with_matches lists files newest first.
 */
import { fstatSync, lstatSync, statSync } from 'node:fs'
import type { Context } from 'cordis'
import type { ToolDefinition } from '@dsh/tools'
import { areaFor, checkNotLinkedToDenied, readableTarget, type Area } from '../area.js'
import type { Config } from '../config.js'
import { PathRefused } from '../paths.js'
import { cutLines, shownPath, walkNotes } from '../search/display.js'
import { typeGlobs } from '../search/file-types.js'
import { picomatch } from '../search/libraries.js'
import { compilePattern, matchText, PatternError, type FileMatch } from '../search/matcher.js'
import { searchLimits, walk, type WalkStats } from '../search/walk.js'
import { READ, readFd, withFd } from './files.js'
import { withNotes } from './notes.js'

const DEFAULT_HEAD_LIMIT = 250
/** as ripgrep's --max-columns in Claude Code's Grep */
const MAX_COLUMNS = 500
const BINARY_PROBE = 8192

type Mode = 'content' | 'files_with_matches' | 'count'

interface Args {
  pattern: string
  path?: string
  glob?: string
  type?: string
  output_mode?: Mode
  '-i'?: boolean
  '-n'?: boolean
  '-A'?: number
  '-B'?: number
  '-C'?: number
  head_limit?: number
  multiline?: boolean
}

interface Hit {
  real: string
  match: FileMatch
}

/** A file filter from `glob` (ripgrep's: a pattern without `/` matches the name at any depth) and `type`. */
function fileFilter(args: Args): (rel: string) => boolean {
  const tests: Array<(rel: string) => boolean> = []
  if (args.glob !== undefined) {
    // like rg --glob: `*.{ts,tsx}`; several patterns separated by spaces
    const patterns = args.glob.split(/\s+/).filter(Boolean)
    tests.push(picomatch()(patterns, { dot: true, basename: !args.glob.includes('/') }))
  }
  if (args.type !== undefined) tests.push(picomatch()([...typeGlobs(args.type)], { dot: true, basename: true }))
  return (rel) => tests.every((t) => t(rel))
}

/** The file's text, or why it was not searched. */
function readText(area: Area, real: string, maxBytes: number): string | 'binary' | 'too-large' | 'unreadable' {
  try {
    return withFd(real, READ, (fd) => {
      // a refused hard link to a denied file is 'unreadable': skipped, as the walk skips denied paths
      checkNotLinkedToDenied(area, fd, real)
      if (fstatSync(fd).size > maxBytes) return 'too-large'
      const data = readFd(fd, real, maxBytes)
      // as ripgrep: a NUL byte near the start means a binary file, which is not searched
      if (data.subarray(0, BINARY_PROBE).includes(0)) return 'binary'
      return data.toString('utf8')
    })
  } catch {
    return 'unreadable'
  }
}

function column(text: string): string {
  return text.length > MAX_COLUMNS ? `${text.slice(0, MAX_COLUMNS)}… [line truncated]` : text
}

/** ripgrep's content output for one file: matched lines `p:n:t`, context `p-n-t`, `--` between groups. */
function contentLines(shown: string, hit: FileMatch, before: number, after: number, numbers: boolean): string[][] {
  const groups: string[][] = []
  let group: string[] = []
  let last = -1
  const matched = new Set(hit.matched)
  for (const m of hit.matched) {
    const from = Math.max(0, m - before, last + 1)
    const to = Math.min(hit.lines.length - 1, m + after)
    if (last >= 0 && from > last + 1 && group.length) {
      groups.push(group)
      group = []
    }
    for (let i = from; i <= to; i++) {
      const sep = matched.has(i) ? ':' : '-'
      group.push(`${shown}${sep}${numbers ? `${i + 1}${sep}` : ''}${column(hit.lines[i])}`)
    }
    last = Math.max(last, to)
  }
  if (group.length) groups.push(group)
  return groups
}

export function grepTool(ctx: Context, config: Config): ToolDefinition<Args & Record<string, any>> {
  const sandbox = ctx.sandbox
  const context = { type: 'integer', minimum: 0, maximum: 1000 } as const
  return {
    name: 'grep',
    title: 'Search file contents',
    description: 'Search file contents with a regular expression (RE2 syntax, as ripgrep). Respects .gitignore; skips binary files and version-control directories. output_mode: files_with_matches (default; newest first), content (matching lines, with -A/-B/-C context and -n line numbers) or count.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'The regular expression to search for' },
        path: { type: 'string', description: 'The file or directory to search (default: the workspace)' },
        glob: { type: 'string', description: 'Only files matching this glob (e.g. "*.js", "*.{ts,tsx}", "src/**/*.ts")' },
        type: { type: 'string', description: 'Only files of this ripgrep type (e.g. js, py, rust, go, ts)' },
        output_mode: { type: 'string', enum: ['content', 'files_with_matches', 'count'], description: 'What to return (default files_with_matches)' },
        '-i': { type: 'boolean', description: 'Case-insensitive search' },
        '-n': { type: 'boolean', description: 'Line numbers in content mode (default true)' },
        '-A': { ...context, description: 'Lines of context after each match (content mode)' },
        '-B': { ...context, description: 'Lines of context before each match (content mode)' },
        '-C': { ...context, description: 'Lines of context before and after each match (content mode)' },
        head_limit: { type: 'integer', minimum: 0, description: `At most this many lines, files or counts (default ${DEFAULT_HEAD_LIMIT}; 0: no limit but the output cap)` },
        multiline: { type: 'boolean', description: 'Let the pattern span lines, with . matching newlines (default false)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    concurrency: 'parallel',
    prompt: 'grep: search file contents with grep rather than grep or rg in bash; it sees only what read may open and does not follow symbolic links. Patterns are RE2 (ripgrep\'s syntax): escape literal braces, no backreferences or look-around. Start with files_with_matches, then content with -C for the lines you need.',
    async execute(args, call) {
      const mode: Mode = args.output_mode ?? 'files_with_matches'
      let pattern
      let accept
      try {
        pattern = compilePattern(args.pattern, { ignoreCase: args['-i'] === true, multiline: args.multiline === true })
        accept = fileFilter(args)
      } catch (error) {
        if (error instanceof PatternError || error instanceof RangeError) throw new PathRefused(error.message)
        throw error
      }
      const area = areaFor(sandbox, config, call)
      const target = readableTarget(sandbox, config, call, args.path ?? area.workspace, 'path')
      const timeoutMs = config.searchTimeoutMs
      const hits: Hit[] = []
      let tooLarge = 0
      const search = (real: string) => {
        const text = readText(area, real, config.maxReadBytes)
        if (text === 'too-large') tooLarge++
        if (typeof text !== 'string' || text === 'binary' || text === 'too-large' || text === 'unreadable') return
        const match = matchText(pattern, text)
        if (match) hits.push({ real, match })
      }
      let stats: WalkStats
      if (statSync(target.real).isDirectory()) {
        const base = target.real
        stats = await walk(area, base, searchLimits(call, config), ({ real }) => {
          if (accept(shownPath(base, real))) search(real)
        })
      } else {
        stats = { files: 1, denied: 0, links: 0, undecodable: 0 }
        search(target.real)
      }
      const limit = args.head_limit ?? DEFAULT_HEAD_LIMIT
      const shown = (real: string) => shownPath(area.workspace, real)
      let lines: string[]
      let unit: string
      let value: Record<string, any>
      if (mode === 'files_with_matches') {
        // newest first, as Claude Code lists them; ties in path order
        const mtime = new Map(hits.map((h) => [h.real, lstatSync(h.real, { throwIfNoEntry: false })?.mtimeMs ?? 0]))
        hits.sort((a, b) => mtime.get(b.real)! - mtime.get(a.real)! || (a.real < b.real ? -1 : a.real > b.real ? 1 : 0))
        lines = hits.map((h) => shown(h.real))
        unit = 'files'
        value = { mode, numFiles: hits.length }
      } else {
        hits.sort((a, b) => (a.real < b.real ? -1 : a.real > b.real ? 1 : 0))
        if (mode === 'count') {
          lines = hits.map((h) => `${shown(h.real)}:${h.match.matched.length}`)
          unit = 'counts'
          value = { mode, numFiles: hits.length, numMatches: hits.reduce((n, h) => n + h.match.matched.length, 0) }
        } else {
          const before = args['-B'] ?? args['-C'] ?? 0
          const after = args['-A'] ?? args['-C'] ?? 0
          const groups = hits.flatMap((h) => contentLines(shown(h.real), h.match, before, after, args['-n'] !== false))
          lines = groups.flatMap((g, i) => (i && (before || after) ? ['--', ...g] : g))
          unit = 'lines'
          value = { mode, numFiles: hits.length, numLines: hits.reduce((n, h) => n + h.match.matched.length, 0) }
        }
      }
      const cut = cutLines(lines, limit, config.maxOutputBytes)
      const notes = walkNotes(stats, { omitted: cut.omitted, unit, tooLarge, maxBytes: config.maxReadBytes, timeoutMs, maxFiles: config.maxSearchFiles })
      const body = cut.lines.length ? cut.lines.join('\n') : mode === 'files_with_matches' ? 'No files found' : 'No matches found'
      const text = [body, ...notes].join('\n')
      // Why the lines in the value too: Claude Code and Codex hand the model the structured value instead of the text (as Claude Code's own Grep has `content`)
      const found: Record<string, string | string[]> = mode === 'files_with_matches' ? { filenames: hits.slice(0, cut.lines.length).map((h) => h.real) } : { content: text }
      return {
        content: text,
        value: withNotes({ ...value, shown: cut.lines.length, truncated: cut.omitted > 0 || stats.stopped !== undefined || stats.undecodable > 0, filesSearched: stats.files, ...found }, notes),
      }
    },
  }
}
