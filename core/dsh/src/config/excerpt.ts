/**
 * Where in a config file a problem is: the line and column of a key path in
 * the YAML document (a list's entry by its index), and the excerpt with a caret under it.
 */
import type { Document, LineCounter } from 'yaml'
import { yaml } from './yaml.js'

/** The offset of the key at `path` (the deepest key of it that exists), if any. */
function keyOffset(doc: Document, path: readonly string[]): number | undefined {
  const { isMap, isScalar, isSeq } = yaml()
  let node: unknown = doc.contents
  let offset: number | undefined
  for (const segment of path) {
    // an entry of a list (`allow[1]`): the entry itself
    if (isSeq(node) && /^\d+$/.test(segment)) {
      const item = node.items[Number(segment)] as { range?: [number, number, number] } | undefined
      if (!item?.range) break
      offset = item.range[0]
      node = item
      continue
    }
    if (!isMap(node)) break
    const pair = node.items.find((item) => isScalar(item.key) ? String(item.key.value) === segment : false)
    if (!pair || !isScalar(pair.key)) break
    offset = pair.key.range?.[0]
    node = pair.value
  }
  return offset
}

/** `line:col` and the source line with a caret under the column, for an offset in `text`. */
export function excerptAt(text: string, lines: LineCounter, offset: number): { where: string; excerpt: string } {
  const { line, col } = lines.linePos(offset)
  const source = text.split('\n')[line - 1] ?? ''
  return { where: `${line}:${col}`, excerpt: `  ${source}\n  ${' '.repeat(Math.max(0, col - 1))}^` }
}

/** The message for `problem` at `path` in `file`: the file once, the line, the excerpt and caret when the key is found. */
export function locateProblem(file: string, text: string, doc: Document, lines: LineCounter, path: readonly string[], problem: string): string {
  const offset = path.length ? keyOffset(doc, path) : undefined
  if (offset === undefined) return `${file}: ${problem}`
  const { where, excerpt } = excerptAt(text, lines, offset)
  return `${file}:${where}: ${problem}\n${excerpt}`
}

/** The key path a config error names: its `details.path`, or schemastery's `$.a.b` at the start of the message. */
export function problemPath(error: unknown, message: string): string[] {
  const path = (error as { details?: { path?: unknown } } | undefined)?.details?.path
  if (typeof path === 'string' && path) return path.split('.')
  const dollar = /^\$\.([\w$-]+(?:\.[\w$-]+)*)/.exec(message)
  return dollar ? dollar[1].split('.') : []
}
