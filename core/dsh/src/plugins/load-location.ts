/** Where a plugin's code failed to load (file, line, caret), since a SyntaxError from import() names no place on Node 20 (decisions/2026-12-02-load-error-location.md). */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { CODE_PARAM } from '../reload/code/hooks.js'

// required, not imported: the bundle keeps acorn in dist/vendor/acorn.cjs, read only when a plugin fails to parse
const require = createRequire(import.meta.url)
const JS = /\.(?:[cm]?js|jsx)$/
const MAX_BYTES = 4 * 1024 * 1024

export interface LoadLocation {
  file: string
  line: number
  column: number
  /** the source line and a caret under the column, indented */
  excerpt: string
}

function excerpt(text: string, line: number, column: number): string {
  const source = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '')
  return `  ${source}\n  ${' '.repeat(Math.max(0, column - 1))}^`
}

function read(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8')
    return text.length > MAX_BYTES ? undefined : text
  } catch {
    return undefined
  }
}

/** The place acorn finds a syntax error in `file`, if it finds one (1-based line and column). */
export async function syntaxErrorIn(file: string): Promise<LoadLocation | undefined> {
  if (!JS.test(file)) return undefined
  const text = read(file)
  if (text === undefined) return undefined
  const script = file.endsWith('.cjs')
  // Why here: acorn (~3 MB of RSS) is needed only once a plugin fails with a SyntaxError
  const { parse } = require('acorn') as typeof import('acorn')
  try {
    parse(text, {
      ecmaVersion: 'latest',
      sourceType: script ? 'script' : 'module',
      allowHashBang: true,
      allowReturnOutsideFunction: script,
      locations: true,
    })
    return undefined
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc
    if (!loc) return undefined
    return { file, line: loc.line, column: loc.column + 1, excerpt: excerpt(text, loc.line, loc.column + 1) }
  }
}

/** The first frame of `stack` in one of `files` (a `file:` URL or a path, a reload's query dropped). */
function frameIn(stack: string, files: ReadonlySet<string>): LoadLocation | undefined {
  const frame = /(file:\/\/[^\s)]+?|\/[^\s():]+):(\d+):(\d+)/g
  for (const match of stack.matchAll(frame)) {
    let file = match[1]
    try {
      if (file.startsWith('file:')) {
        const url = new URL(file)
        url.searchParams.delete(CODE_PARAM)
        file = fileURLToPath(url)
      }
    } catch {
      continue
    }
    if (!files.has(file)) continue
    const line = Number(match[2])
    const column = Number(match[3])
    const text = read(file)
    return { file, line, column, excerpt: text === undefined ? '' : excerpt(text, line, column) }
  }
  return undefined
}

/**
 * Where `error`, raised by importing a plugin whose code is `files` (its entry first), happened;
 * undefined when no file of the plugin is to blame (a missing package, a missing service).
 */
export async function loadLocation(error: unknown, files: readonly string[]): Promise<LoadLocation | undefined> {
  if (!(error instanceof Error) || !files.length) return undefined
  if (error.name === 'SyntaxError') {
    for (const file of files) {
      const found = await syntaxErrorIn(file)
      if (found) return found
    }
    return undefined
  }
  return typeof error.stack === 'string' ? frameIn(error.stack, new Set(files)) : undefined
}

/** `file:line:col: message` and the excerpt below, for a located error. */
export function formatLocated(where: LoadLocation, message: string): string {
  return `${where.file}:${where.line}:${where.column}: ${message}${where.excerpt ? `\n${where.excerpt}` : ''}`
}
