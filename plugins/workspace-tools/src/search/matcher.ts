/** grep's pattern matching on RE2's linear-time engine, since a pattern from the model must not backtrack for ever (docs/architecture.md, workspace-tools). */
import type { RE2JS } from 're2js'
import { clipInput, quoteInput } from '@dsh/kernel'
import { re2js } from './libraries.js'

export interface Pattern {
  /** scans whole texts (`^`/`$` at line ends) */
  whole: RE2JS
  /** tests one line at a time (absent in multiline mode) */
  line?: RE2JS
}

export class PatternError extends Error {
  override name = 'PatternError'
}

export function compilePattern(source: string, options: { ignoreCase: boolean; multiline: boolean }): Pattern {
  const RE2JS = re2js()
  const base = options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0
  try {
    if (options.multiline) return { whole: RE2JS.compile(source, base | RE2JS.MULTILINE | RE2JS.DOTALL) }
    return { whole: RE2JS.compile(source, base | RE2JS.MULTILINE), line: RE2JS.compile(source, base) }
  } catch (error) {
    // RE2's message quotes the pattern again: both cut, a pattern can be megabytes long
    throw new PatternError(`pattern ${quoteInput(source)} is not a valid regular expression (RE2 syntax, as ripgrep): ${clipInput((error as Error).message, 2 * 120)}`)
  }
}

/** The 0-based offsets at which each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0]
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1)
  return starts
}

/** The 0-based line holding offset `at`. */
function lineOf(starts: readonly number[], at: number): number {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid] <= at) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The lines of a file and which of them (0-based, ascending) match. */
export interface FileMatch {
  lines: string[]
  matched: number[]
}

export function matchText(pattern: Pattern, text: string): FileMatch | undefined {
  const found = pattern.whole.matcher(text)
  if (!found.find()) return undefined
  const lines = text.split('\n')
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  if (pattern.line) {
    const matched: number[] = []
    for (let i = 0; i < lines.length; i++) if (pattern.line.test(lines[i])) matched.push(i)
    return matched.length ? { lines, matched } : undefined
  }
  const starts = lineStarts(text)
  const matched = new Set<number>()
  // every find() starts at or after the previous one's end (an empty match moves on by one)
  do {
    const first = lineOf(starts, found.start())
    const last = lineOf(starts, Math.max(found.start(), found.end() - 1))
    for (let i = first; i <= last && i < lines.length; i++) matched.add(i)
  } while (found.find())
  return { lines, matched: [...matched].sort((a, b) => a - b) }
}
