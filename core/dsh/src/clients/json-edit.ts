/**
 * Editing a client's JSON file in place (jsonc-parser's edits): only the values dsh sets change,
 * everything else keeps its bytes — order, indentation, line ends. Strict JSON as the clients
 * read it: a comment or a trailing comma is an error naming the line.
 */
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { ConfigFileError, lineAndColumn } from './config-file.js'

export type JsonPath = (string | number)[]

/** The parsed document; a malformed one is an error naming the file, line and column. */
export function parseJson(text: string, file: string): unknown {
  const errors: ParseError[] = []
  const value = parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: true })
  if (errors.length > 0) {
    const first = errors[0]!
    const { line, column } = lineAndColumn(text, first.offset)
    const shown = text.split('\n')[line - 1] ?? ''
    throw new ConfigFileError(`${file}:${line}:${column}: not valid JSON (${printParseErrorCode(first.error)}); nothing was written. The line:\n  ${shown}`)
  }
  if (text.trim() !== '' && (value === null || typeof value !== 'object' || Array.isArray(value))) throw new ConfigFileError(`${file}: expected a JSON object at the top; nothing was written`)
  return value ?? {}
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The value at `path`, or undefined. */
export function getPath(doc: unknown, path: JsonPath): unknown {
  let here: unknown = doc
  for (const key of path) {
    if (typeof key === 'number' ? !Array.isArray(here) : !isObject(here)) return undefined
    here = (here as Record<string | number, unknown>)[key]
  }
  return here
}

function indentOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const indented = text.split(/\r?\n/).find((line) => /^[ \t]+\S/.test(line))
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol }
  const spaces = indented ? indented.length - indented.trimStart().length : 2
  return { insertSpaces: true, tabSize: spaces, eol }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** A JSON text being edited. */
export class JsonEdit {
  text: string
  private readonly formatting: { insertSpaces: boolean; tabSize: number; eol: string }

  constructor(
    before: string | undefined,
    readonly file: string,
  ) {
    this.text = before === undefined || before.trim() === '' ? '{}\n' : before
    parseJson(this.text, file)
    this.formatting = indentOf(before ?? '')
  }

  get value(): unknown {
    return parseJson(this.text, this.file)
  }

  private check(path: JsonPath): void {
    // every parent must be an object (or absent): a string where an object belongs is the user's to fix
    for (let i = 0; i < path.length; i++) {
      const at = getPath(this.value, path.slice(0, i))
      if (at !== undefined && !isObject(at)) throw new ConfigFileError(`${this.file}: ${path.slice(0, i).join('.') || 'the top level'} is not an object; nothing was written`)
    }
  }

  /** Set `path` to `value` (unchanged when it already holds it). */
  set(path: JsonPath, value: unknown): void {
    if (sameJson(getPath(this.value, path), value)) return
    this.check(path)
    this.text = applyEdits(this.text, modify(this.text, path, value, { formattingOptions: this.formatting }))
  }

  /** Remove `path` (nothing when it is absent). */
  remove(path: JsonPath): void {
    if (getPath(this.value, path) === undefined) return
    this.text = applyEdits(this.text, modify(this.text, path, undefined, { formattingOptions: this.formatting }))
  }

  /** Add each of `items` missing from the array at `path` (made when absent), at its end. */
  addToArray(path: JsonPath, items: readonly string[]): void {
    const current = getPath(this.value, path)
    if (current !== undefined && !Array.isArray(current)) throw new ConfigFileError(`${this.file}: ${path.join('.')} is not an array; nothing was written`)
    if (current === undefined) {
      this.set(path, [...items])
      return
    }
    let length = current.length
    for (const item of items) {
      if (current.includes(item)) continue
      this.text = applyEdits(this.text, modify(this.text, [...path, length], item, { formattingOptions: this.formatting, isArrayInsertion: true }))
      length++
    }
  }
}
