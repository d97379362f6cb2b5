// @ts-check
/**
 * TypeScript → JavaScript with sucrase, which removes types in place and keeps
 * every line where it was, so a line in the compiled program is a line in the
 * user's program (shifted by the wrapper's first line). The program becomes the
 * body of an async arrow function: top-level `await` and `return` work, and its
 * completion is the promise the worker waits on.
 */
import { transform } from 'sucrase'

/** the file name QuickJS puts in stack traces */
export const programFile = 'program.ts'
const head = '(async () => {\n'
const tail = '\n})()'

/**
 * @param {string} code
 * @returns {{ ok: true, js: string } | { ok: false, message: string, line?: number }}
 */
export function compileProgram(code) {
  try {
    const { code: js } = transform(head + code + tail, {
      transforms: ['typescript'],
      // QuickJS runs ES2023 as is: no helpers, no rewriting beyond removing types
      disableESTransforms: true,
    })
    return { ok: true, js }
  } catch (error) {
    const e = /** @type {{ message?: unknown, loc?: { line?: unknown, column?: unknown } }} */ (error ?? {})
    const message = String(e.message ?? error).replace(/ \(\d+:\d+\)$/, '')
    const line = programLine(code, e.loc?.line)
    const column = typeof e.loc?.column === 'number' ? e.loc.column : undefined
    return {
      ok: false,
      message: line === undefined ? message : `${message} at line ${line}${column === undefined ? '' : `:${column}`}`,
      ...(line === undefined ? {} : { line }),
    }
  }
}

/**
 * A line of the compiled program as a line of the user's program. A line on the
 * wrapper's own last line (an unclosed brace, say) is the program's last line.
 * @param {string} code
 * @param {unknown} compiledLine
 * @returns {number | undefined}
 */
export function programLine(code, compiledLine) {
  if (typeof compiledLine !== 'number' || !Number.isInteger(compiledLine)) return undefined
  let lines = 1
  for (let i = code.indexOf('\n'); i !== -1; i = code.indexOf('\n', i + 1)) lines++
  return Math.min(Math.max(compiledLine - 1, 1), lines)
}

/**
 * The first line of the program a QuickJS stack trace points at.
 * @param {string} code
 * @param {unknown} stack
 * @returns {number | undefined}
 */
export function lineFromStack(code, stack) {
  if (typeof stack !== 'string') return undefined
  const match = /program\.ts:(\d+)/.exec(stack)
  return match ? programLine(code, Number(match[1])) : undefined
}
