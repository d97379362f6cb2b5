/**
 * Reading a JSON argument from the command line. `JSON.parse` decides; when it
 * refuses, a small scanner finds where the text stops being JSON, so the
 * message can say the line, the column and what was expected there (Node's
 * own messages do not always give a position).
 */

export type JsonArgument = { ok: true; value: unknown } | { ok: false; message: string }

interface Problem {
  at: number
  expected: string
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** The first offset where `text` is not JSON, and what was expected there. */
export function locateJsonError(text: string): Problem | undefined {
  let i = 0
  const fail = (expected: string): never => {
    throw { at: i, expected } satisfies Problem
  }
  const space = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++
  }
  const string = () => {
    i++
    while (i < text.length) {
      const c = text[i]
      if (c === '"') return void i++
      if (c === '\\') {
        const e = text[i + 1]
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6
        else fail('a valid escape sequence')
        continue
      }
      if (c < ' ') fail('no raw control character inside a string')
      i++
    }
    fail('a closing double quote')
  }
  const value = (): void => {
    space()
    const c = text[i]
    if (c === '{') {
      i++
      space()
      if (text[i] === '}') return void i++
      for (;;) {
        space()
        if (text[i] !== '"') fail('a property name in double quotes')
        string()
        space()
        if (text[i] !== ':') fail("':' after the property name")
        i++
        value()
        space()
        if (text[i] === ',') { i++; continue }
        if (text[i] === '}') return void i++
        fail("',' or '}'")
      }
    }
    if (c === '[') {
      i++
      space()
      if (text[i] === ']') return void i++
      for (;;) {
        value()
        space()
        if (text[i] === ',') { i++; continue }
        if (text[i] === ']') return void i++
        fail("',' or ']'")
      }
    }
    if (c === '"') return string()
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i
      if (!NUMBER.exec(text)) fail('a number')
      i = NUMBER.lastIndex
      return
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) return void (i += word.length)
    }
    fail('a value')
  }
  try {
    value()
    space()
    if (i < text.length) fail('the end of the input')
    return undefined
  } catch (problem) {
    if (problem && typeof problem === 'object' && 'expected' in problem) return problem as Problem
    throw problem
  }
}

function position(text: string, at: number): { line: number; column: number; lineText: string; lineStart: number } {
  const before = text.slice(0, at)
  const line = before.split('\n').length
  const lineStart = before.lastIndexOf('\n') + 1
  const end = text.indexOf('\n', at)
  return { line, column: at - lineStart + 1, lineText: text.slice(lineStart, end === -1 ? undefined : end), lineStart }
}

/** A caret under the offending character, on a window of its line. */
function excerpt(lineText: string, column: number): string {
  const start = Math.max(0, column - 1 - 40)
  const shown = lineText.slice(start, start + 80).replace(/[\x00-\x1f]/g, ' ')
  return `  ${start > 0 ? '…' : ''}${shown}\n  ${' '.repeat(column - 1 - start + (start > 0 ? 1 : 0))}^`
}

export function parseJsonArgument(text: string, what = 'the arguments'): JsonArgument {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    const problem = locateJsonError(text) ?? { at: 0, expected: 'JSON' }
    const { line, column, lineText } = position(text, problem.at)
    const found = problem.at >= text.length ? 'the end of the input' : JSON.stringify(text[problem.at])
    return {
      ok: false,
      message: `${what} are not valid JSON: at line ${line}, column ${column}: expected ${problem.expected}, found ${found}\n${excerpt(lineText, column)}\n(${(error as Error).message})`,
    }
  }
}
