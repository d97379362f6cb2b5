/**
 * bash's `<>` (open a file for reading and writing, `exec 3<>file`) is not in
 * tree-sitter's bash grammar: a command holding it parses with an error, and
 * an error makes the whole command unreadable — so `true 3<>x; rm x` would
 * hide its literal `rm` from the rules. For deciding which commands run, `<>`
 * is the same as `<`: each `<>` is read as `< ` (same length, so every other
 * position is unchanged) where the grammar then sees a redirection operator,
 * and left as written everywhere else (inside quotes, here-documents,
 * comments, `<<>`).
 */
import type { Parser, Tree } from 'web-tree-sitter'

/** `text` with its operator `<>`s read as `<`, and the tree of that; `first` (the tree of `text`) when none is one. */
export function readWriteAsInput(parser: Parser, text: string, first: Tree): { source: string; tree: Tree } {
  let positions: number[] = []
  for (let at = text.indexOf('<>'); at >= 0; at = text.indexOf('<>', at + 1)) positions.push(at)
  // each round keeps the rewrites that landed on an operator; the others go back as written
  while (positions.length) {
    let candidate = text
    for (const at of positions) candidate = `${candidate.slice(0, at + 1)} ${candidate.slice(at + 2)}`
    const tree = parser.parse(candidate)
    if (!tree) break
    const kept = positions.filter((at) => {
      const node = tree.rootNode.descendantForIndex(at, at + 1)
      return node?.type === '<' && !node.isNamed && node.parent?.type === 'file_redirect'
    })
    if (kept.length === positions.length) {
      first.delete()
      return { source: candidate, tree }
    }
    tree.delete()
    positions = kept
  }
  return { source: text, tree: first }
}
