/**
 * Reading a shell command into the simple commands it would run, with
 * tree-sitter's bash grammar (web-tree-sitter: WebAssembly, in-process,
 * synchronous once loaded). Every command anywhere in the text counts — the
 * parts of `&&`, `||`, `;`, `|` and `&` lists, subshells, groups, function
 * bodies, conditions and loops, command and process substitutions, heredoc
 * bodies. A word whose value depends on the run (an expansion, a substitution,
 * `$'…'`, brace expansion) is `null`: unknown. Text the grammar cannot read
 * completely is `unparseable`, never a partial answer.
 */
import { createRequire } from 'node:module'
import type { Node, Parser } from 'web-tree-sitter'

/** One simple command: `assignments` are its `NAME=value` prefixes, `words` its name and arguments. */
export interface SimpleCommand {
  assignments: (string | null)[]
  words: (string | null)[]
}

export type ShellAnalysis = { kind: 'commands'; commands: readonly SimpleCommand[] } | { kind: 'unparseable'; reason: string }

const require = createRequire(import.meta.url)
let loading: Promise<Parser> | undefined
let parser: Parser | undefined

/**
 * Load the grammar once per process; resolves when `analyzeShell` can run.
 * The module and its WebAssembly are loaded only here (tens of milliseconds),
 * so a process that never decides a Bash call never pays for them.
 */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const { Language, Parser } = await import('web-tree-sitter')
    await Parser.init()
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
    const created = new Parser()
    created.setLanguage(language)
    parser = created
    return created
  })()
  // a failed load is retried by the next caller instead of being cached
  loading.catch(() => {
    loading = undefined
  })
  return loading.then(() => undefined)
}

/** Whether `analyzeShell` can run now. */
export function shellParserLoaded(): boolean {
  return parser !== undefined
}

/** Commands longer than this are not parsed: they ask. */
export const MAX_COMMAND_CHARS = 64 * 1024

const COMMANDS = new Set(['command', 'declaration_command', 'unset_command', 'test_command'])

/** The simple commands of `text`. Requires `loadShellParser()` to have resolved. */
export function analyzeShell(text: string): ShellAnalysis {
  if (!parser) throw new Error('the shell parser is not loaded')
  if (text.length > MAX_COMMAND_CHARS) return { kind: 'unparseable', reason: `the command is longer than ${MAX_COMMAND_CHARS} characters` }
  // a NUL cannot reach sh -c; refuse it rather than guess how a shell would cut the text
  if (text.includes('\0')) return { kind: 'unparseable', reason: 'the command contains a NUL character' }
  const tree = parser.parse(text)
  if (!tree) return { kind: 'unparseable', reason: 'the shell parser gave no tree' }
  try {
    if (tree.rootNode.hasError) return { kind: 'unparseable', reason: 'the command is not complete shell syntax' }
    const commands: SimpleCommand[] = []
    collect(tree.rootNode, commands)
    return { kind: 'commands', commands }
  } finally {
    tree.delete()
  }
}

function collect(node: Node, out: SimpleCommand[]): void {
  if (COMMANDS.has(node.type)) out.push(simpleCommand(node))
  // substitutions inside words, redirect targets and heredocs run too
  for (const child of node.namedChildren) if (child) collect(child, out)
}

function simpleCommand(node: Node): SimpleCommand {
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
      const target = node.type === 'command' ? assignments : words
      target.push(assignment(child))
    } else if (child.type === 'command_name') {
      words.push(child.firstNamedChild ? wordValue(child.firstNamedChild) : null)
    } else if (child.type.endsWith('_redirect') || child.type === 'heredoc_body' || child.type === 'comment') {
      // where output goes is the sandbox's business; a substitution in the target is collected
    } else {
      words.push(wordValue(child))
    }
  }
  return { assignments, words }
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
