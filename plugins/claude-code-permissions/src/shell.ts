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
import { setFlagsFromString } from 'node:v8'
import type { Parser } from 'web-tree-sitter'
import { readWriteAsInput } from './shell-read-write.js'
import { collect, Unreadable, type SimpleCommand } from './shell-commands.js'

export { wordValue, type SimpleCommand } from './shell-commands.js'

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
    // Why Liftoff only, and every function at once: after the first parses V8 recompiles the
    // grammar's hot functions with TurboFan on its background threads, ~0.5 s of CPU that the
    // process's exit waits for (docs/measurements/2026-12-02-first-call.md); a function compiled
    // lazily, after the flags are put back, would still tier up. Set while the grammar's two modules
    // compile, then put back for any other WebAssembly
    setFlagsFromString('--liftoff-only')
    setFlagsFromString('--no-wasm-lazy-compilation')
    let language: import('web-tree-sitter').Language
    try {
      await Parser.init()
      language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'))
    } finally {
      // Why the tiering two: --liftoff-only turns them off as well, and V8's flag hash (checked by every
      // code cache, the CLI bundle's among them) must be the process's default again
      setFlagsFromString('--no-liftoff-only')
      setFlagsFromString('--wasm-lazy-compilation')
      setFlagsFromString('--wasm-tier-up')
      setFlagsFromString('--wasm-dynamic-tiering')
    }
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

/** Whether the grammar is loaded or being loaded (a load that failed is not). */
export function shellParserRequested(): boolean {
  return loading !== undefined
}

/** Whether `analyzeShell` can run now. */
export function shellParserLoaded(): boolean {
  return parser !== undefined
}

/** Commands longer than this are not parsed: they ask. */
export const MAX_COMMAND_CHARS = 64 * 1024

/** The simple commands of `text`. Requires `loadShellParser()` to have resolved. */
export function analyzeShell(text: string): ShellAnalysis {
  if (!parser) throw new Error('the shell parser is not loaded')
  if (text.length > MAX_COMMAND_CHARS) return { kind: 'unparseable', reason: `the command is longer than ${MAX_COMMAND_CHARS} characters` }
  // a NUL cannot reach sh -c; refuse it rather than guess how a shell would cut the text
  if (text.includes('\0')) return { kind: 'unparseable', reason: 'the command contains a NUL character' }
  let source = text
  let tree = parser.parse(text)
  if (!tree) return { kind: 'unparseable', reason: 'the shell parser gave no tree' }
  // the grammar lacks bash's `<>` (open read-write); read it as `<` where it is an operator
  if (tree.rootNode.hasError && text.includes('<>')) ({ source, tree } = readWriteAsInput(parser, text, tree))
  try {
    if (tree.rootNode.hasError) return { kind: 'unparseable', reason: 'the command is not complete shell syntax' }
    const commands: SimpleCommand[] = []
    collect(tree.rootNode, source, commands)
    return { kind: 'commands', commands }
  } catch (error) {
    if (error instanceof Unreadable) return { kind: 'unparseable', reason: `the command cannot be read: ${error.message}` }
    throw error
  } finally {
    tree.delete()
  }
}
