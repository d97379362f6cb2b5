/** The simple commands of a parsed command line, read off tree-sitter's bash tree and corrected where it is not bash's (`rm 2>x -rf /` runs `rm -rf /`; each correction says why at its line), since a rule must meet what bash will run. */
import type { Node } from 'web-tree-sitter'

/** One simple command: `assignments` are its `NAME=value` prefixes, `words` its name and arguments. */
export interface SimpleCommand {
  assignments: (string | null)[]
  words: (string | null)[]
}

/** Thrown while reading a tree bash would not run as the grammar has it. */
export class Unreadable extends Error {}

const COMMANDS = new Set(['command', 'declaration_command', 'unset_command', 'test_command'])
/** Lists and pipelines whose last command the grammar may hang a redirection's words on. */
const LAST_TAKES_WORDS = new Set(['pipeline', 'list', 'negated_command'])
const DESCRIPTOR = /^(\{[A-Za-z_][A-Za-z0-9_]*\}|\d+)$/

/**
 * Every simple command anywhere below `node`; `text` is the whole command
 * line. `extra`: words of an enclosing redirection that belong to the last
 * simple command here (the grammar hangs `a | b >x c`'s redirection on the
 * whole pipeline, though `c` is `b`'s argument).
 */
export function collect(node: Node, text: string, out: SimpleCommand[], extra: readonly Node[] = []): void {
  if (node.type === 'redirected_statement') {
    const body = node.childForFieldName('body')
    const redirects = node.childrenForFieldName('redirect').filter((child): child is Node => !!child)
    // Why: words after a redirection are the command's arguments (`rm 2>x -rf /`), though the grammar files them under the redirection
    const words = [...redirects.flatMap(argumentsOf), ...extra]
    if (body) collect(body, text, out, words)
    else if (words.length) throw new Unreadable('words after a redirection with no command')
    for (const redirect of redirects) collect(redirect, text, out)
    return
  }
  if (COMMANDS.has(node.type)) {
    out.push(simpleCommand(node, text, extra))
    for (const child of node.namedChildren) if (child) collect(child, text, out)
    return
  }
  if (node.type === 'variable_assignment' && extra.length) {
    // `a | B=1 >x cmd`: the grammar ends the pipeline at the assignment and files `cmd` under the redirection
    out.push({ assignments: [assignment(node)], words: extra.map(wordValue) })
    for (const child of node.namedChildren) if (child) collect(child, text, out)
    return
  }
  const children = node.namedChildren.filter((child): child is Node => !!child)
  if (extra.length) {
    // only a simple command takes words after its redirection; bash refuses them after a compound command
    if (!LAST_TAKES_WORDS.has(node.type) || !children.length) throw new Unreadable('words after the redirection of a compound command')
    children.forEach((child, index) => collect(child, text, out, index === children.length - 1 ? extra : []))
    return
  }
  // substitutions inside words, redirect targets and heredocs run too
  for (const child of children) collect(child, text, out)
}

/** The words of a redirection that are the command's arguments, not its target. */
function argumentsOf(redirect: Node): Node[] {
  if (redirect.type === 'file_redirect') {
    const destinations = redirect.childrenForFieldName('destination').filter((child): child is Node => !!child)
    // `>&-` closes a descriptor: it has no target, so every word after it is an argument
    const closes = redirect.children.some((child) => child && !child.isNamed && (child.type === '>&-' || child.type === '<&-'))
    return closes ? destinations : destinations.slice(1)
  }
  if (redirect.type === 'heredoc_redirect') {
    const own = redirect.childrenForFieldName('argument').filter((child): child is Node => !!child)
    const nested = redirect.childrenForFieldName('redirect').filter((child): child is Node => !!child).flatMap(argumentsOf)
    return [...own, ...nested]
  }
  return []
}

function simpleCommand(node: Node, text: string, extra: readonly Node[]): SimpleCommand {
  const assignments: (string | null)[] = []
  const words: (string | null)[] = []
  if (node.type === 'test_command') {
    // `[[ … ]]` evaluates an expression; any substitution inside is collected as its own command
    words.push('[[')
    return { assignments, words }
  }
  if (node.type !== 'command') words.push(node.child(0)?.type ?? null) // export, declare, local, unset, …
  for (const child of node.namedChildren) {
    if (!child) continue
    if (child.type === 'variable_assignment') {
      const target = node.type === 'command' && !words.length ? assignments : words
      target.push(assignment(child))
    } else if (child.type === 'command_name') {
      const word = child.firstNamedChild
      if (!word || !isDescriptorVariable(word, text)) words.push(word ? wordValue(word) : null)
    } else if (child.type === 'file_redirect' || child.type === 'heredoc_redirect') {
      // a prefix redirection (`2>x rm …`) may carry words of the command itself
      for (const word of argumentsOf(child)) words.push(wordValue(word))
    } else if (child.type.endsWith('_redirect') || child.type === 'heredoc_body' || child.type === 'comment') {
      // where output goes is the sandbox's business; a substitution in the target is collected
    } else if (!isDescriptorVariable(child, text)) {
      words.push(wordValue(child))
    }
  }
  for (const word of extra) words.push(wordValue(word))
  return { assignments, words }
}

/**
 * `{fd}` or a number directly before `<` or `>` belongs to the redirection
 * (`exec {fd}>x`: bash stores the new descriptor in `fd`; `0<x cmd`: the
 * grammar reads `0` as the command's name and `cmd` as a second target).
 */
function isDescriptorVariable(node: Node, text: string): boolean {
  const next = text[node.endIndex]
  return (next === '<' || next === '>') && DESCRIPTOR.test(node.text)
}

function assignment(node: Node): string | null {
  const name = node.childForFieldName('name')?.text
  const value = node.childForFieldName('value')
  if (!name) return null
  if (!value) return `${name}=`
  const text = wordValue(value)
  return text === null ? null : `${name}=${text}`
}

/** The static value of a word, or null when it depends on the run. */
export function wordValue(node: Node): string | null {
  switch (node.type) {
    case 'word':
      return node.text.replace(/\\([\s\S])/g, (_, char: string) => (char === '\n' ? '' : char))
    case 'number':
      return node.text
    case 'raw_string':
      return node.text.slice(1, -1)
    case 'string': {
      for (const child of node.namedChildren) if (child && child.type !== 'string_content') return null
      // inside double quotes a backslash escapes only $ ` " \ and a newline
      return node.text.slice(1, -1).replace(/\\([$`"\\\n])/g, (_, char: string) => (char === '\n' ? '' : char))
    }
    case 'concatenation': {
      let text = ''
      let covered = 0
      for (const child of node.namedChildren) {
        const part = child ? wordValue(child) : null
        if (part === null) return null
        text += part
        covered += child!.text.length
      }
      // a piece the grammar left unnamed would be lost: not knowing it is safer than dropping it
      return covered === node.text.length ? text : null
    }
    default:
      // expansions, substitutions, $'…', $"…", {a,b}: known only when the command runs
      return null
  }
}
