/** A source file's text: undefined when it is absent (a source with no file has no servers), a problem when it cannot be read. */
import { readFileSync } from 'node:fs'
import type { SourceName, SourceProblem } from './types.js'

export function readSourceFile(source: SourceName, file: string, problems: SourceProblem[]): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    problems.push({ source, file, message: `cannot be read (${(error as Error).message}); its servers are left out` })
    return undefined
  }
}

/** 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}
