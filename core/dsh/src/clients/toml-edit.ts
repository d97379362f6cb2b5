/**
 * Editing Codex's config.toml as text: a key dsh sets is changed on its own line, or added at
 * the end of its table (a new table goes at the end of the file, a top-level key before the
 * first table), so every other byte — comments, order, blank lines — stays. smol-toml parses
 * the text before (a malformed file is an error naming its line) and after: the edit must give
 * exactly the document before with dsh's values set, or nothing is written.
 */
import { parse, TomlError } from 'smol-toml'
import { isDeepStrictEqual } from 'node:util'
import { ConfigFileError } from './config-file.js'

export type TomlValue = string | boolean | number | readonly string[]
type Table = Record<string, unknown>

export function parseToml(text: string, file: string): Table {
  try {
    return parse(text) as Table
  } catch (error) {
    if (error instanceof TomlError) {
      const shown = text.split('\n')[error.line - 1] ?? ''
      throw new ConfigFileError(`${file}:${error.line}:${error.column}: not valid TOML (${error.message.split('\n')[0]}); nothing was written. The line:\n  ${shown}`)
    }
    throw new ConfigFileError(`${file}: not valid TOML (${(error as Error).message}); nothing was written`)
  }
}

const KEY_PART = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*/y

/** A dotted key (`a."b.c".d`) as its parts, reading from the start of `text`; `rest` is what follows it. */
export function readKey(text: string): { parts: string[]; rest: string } | undefined {
  const parts: string[] = []
  let at = 0
  for (;;) {
    KEY_PART.lastIndex = at
    const m = KEY_PART.exec(text)
    if (!m) return undefined
    parts.push(m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : (m[2] ?? m[3]!))
    at = KEY_PART.lastIndex
    if (text[at] !== '.') return { parts, rest: text.slice(at) }
    at++
  }
}

function show(value: TomlValue): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`
  return String(value)
}

function bareOrQuoted(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key)
}

/** A plain copy to compare: objects with Object's prototype, dates as their text. */
function plain(value: unknown): unknown {
  if (value instanceof Date) return `date:${String(value)}`
  if (Array.isArray(value)) return value.map(plain)
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  return value
}

function getIn(doc: Table, path: readonly string[]): unknown {
  let here: unknown = doc
  for (const key of path) {
    if (typeof here !== 'object' || here === null || Array.isArray(here)) return undefined
    here = (here as Table)[key]
  }
  return here
}

function setIn(doc: Table, path: readonly string[], value: unknown): void {
  let here = doc
  for (const key of path.slice(0, -1)) {
    if (typeof here[key] !== 'object' || here[key] === null) here[key] = {}
    here = here[key] as Table
  }
  here[path[path.length - 1]!] = value
}

interface Line {
  /** the table the line belongs to ([] before the first header) */
  table: string[]
  /** a header line's table path */
  header?: string[]
  /** a `key = value` line's key parts (relative to `table`) */
  key?: string[]
  /** whether the line is blank or a comment */
  trivia: boolean
}

/** What each line is, tracking multi-line strings and arrays so that their lines are not read as keys. */
function classify(lines: readonly string[]): Line[] {
  const out: Line[] = []
  let table: string[] = []
  let inString: string | undefined
  let depth = 0
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '')
    if (inString !== undefined || depth > 0) {
      out.push({ table, trivia: false })
    } else if (/^\s*(#.*)?$/.test(line)) {
      out.push({ table, trivia: true })
      continue
    } else if (/^\s*\[\[/.test(line)) {
      // an array of tables: its keys are never ones dsh sets
      table = ['\u0000array']
      out.push({ table, header: table, trivia: false })
      continue
    } else if (/^\s*\[/.test(line)) {
      const key = readKey(line.replace(/^\s*\[/, ''))
      table = key && /^\]\s*(#.*)?$/.test(key.rest) ? key.parts : ['\u0000unreadable']
      out.push({ table, header: table, trivia: false })
      continue
    } else {
      const key = readKey(line)
      out.push({ table, ...(key && key.rest.startsWith('=') ? { key: key.parts } : {}), trivia: false })
    }
    // what the line leaves open: a multi-line string, or brackets of a multi-line array or inline table
    let rest = line
    for (;;) {
      if (inString !== undefined) {
        const end = rest.indexOf(inString)
        if (end < 0) break
        rest = rest.slice(end + 3)
        inString = undefined
        continue
      }
      const open = /"""|'''/.exec(rest)
      const scan = open ? rest.slice(0, open.index) : rest
      const bare = scan.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '').replace(/#.*$/, '')
      depth += (bare.match(/[[{]/g)?.length ?? 0) - (bare.match(/[\]}]/g)?.length ?? 0)
      if (!open || /#/.test(scan.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, ''))) break
      inString = open[0]
      rest = rest.slice(open.index + 3)
    }
    if (depth < 0) depth = 0
  }
  return out
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/** A config.toml being edited. */
export class TomlEdit {
  text: string
  private readonly eol: string

  constructor(
    before: string | undefined,
    readonly file: string,
  ) {
    this.text = before ?? ''
    parseToml(this.text, file)
    this.eol = this.text.includes('\r\n') ? '\r\n' : '\n'
  }

  get value(): Table {
    return parseToml(this.text, this.file)
  }

  /** Set `key` of `table` ([] for the top level) to `value`. */
  set(table: readonly string[], key: string, value: TomlValue): void {
    const before = this.value
    const path = [...table, key]
    if (isDeepStrictEqual(plain(getIn(before, path)), plain(value))) return
    const lines = this.text.split('\n')
    const kinds = classify(lines)
    const assignment = `${bareOrQuoted(key)} = ${show(value)}`
    const cr = this.eol === '\r\n' ? '\r' : ''
    const found = kinds.findIndex((k) => k.key !== undefined && same([...k.table, ...k.key], path))
    if (found >= 0) {
      const line = lines[found]!
      const eq = line.indexOf('=')
      // the value and an end-of-line comment: keep the key as written and the comment
      const comment = /^\s*(?:true|false|[-+0-9._:a-zA-Z]+|"(?:[^"\\]|\\.)*"|'[^']*')(\s+#.*)$/.exec(line.slice(eq + 1).replace(/\r$/, ''))
      lines[found] = `${line.slice(0, eq + 1)} ${show(value)}${comment ? comment[1] : ''}${cr}`
    } else if (table.length === 0) {
      const firstHeader = kinds.findIndex((k) => k.header !== undefined)
      if (firstHeader < 0) {
        if (lines[lines.length - 1] === '') lines.splice(lines.length - 1, 0, assignment + cr)
        else lines.push(assignment + cr, '')
      } else {
        // after the last top-level line that is not blank or a comment (or at the top)
        let at = 0
        for (let i = 0; i < firstHeader; i++) if (!kinds[i]!.trivia) at = i + 1
        lines.splice(at, 0, assignment + cr)
      }
    } else {
      const header = kinds.findIndex((k) => k.header !== undefined && same(k.header, table))
      if (header >= 0) {
        let at = header + 1
        for (let i = header + 1; i < kinds.length && kinds[i]!.header === undefined; i++) if (!kinds[i]!.trivia) at = i + 1
        lines.splice(at, 0, assignment + cr)
      } else {
        while (lines.length > 0 && lines[lines.length - 1]!.replace(/\r$/, '') === '') lines.pop()
        const block = [`[${table.map(bareOrQuoted).join('.')}]${cr}`, assignment + cr, '']
        lines.push(...(lines.length > 0 ? [cr, ...block] : block))
      }
    }
    const after = lines.join('\n')
    let parsed: Table
    try {
      parsed = parse(after) as Table
    } catch {
      parsed = {}
    }
    const expected = plain(before) as Table
    setIn(expected, path, plain(value))
    if (!isDeepStrictEqual(plain(parsed), expected)) throw new ConfigFileError(`${this.file}: cannot set ${path.join('.')} here without changing something else (it is set in a form dsh setup does not edit, such as an inline table); set ${path.join('.')} = ${show(value)} by hand; nothing was written`)
    this.text = after
  }
}
