/** The workspace files a hook command runs, registered with the sandbox, since a hook runs unconfined whatever a confined command last wrote there (docs/decisions/2026-12-02-hook-scripts-protected.md). */
import { lstatSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { analyzeShell, programName, unwrap } from '@dsh/claude-code-permissions'

export interface HookScripts {
  /** absolute paths of the files the commands run (existing regular files and paths not there yet) */
  files: string[]
  /** why a command's program or script is not known before it runs, one line per case */
  unknown: string[]
}

interface Interpreter {
  /** options that take the next word as their value (so that word is not the script) */
  values: ReadonlySet<string>
  /** options whose code is inline or read from stdin: no file of ours runs */
  inline: ReadonlySet<string>
  /** options naming a module found when it runs (python -m) */
  module?: ReadonlySet<string>
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items)
const SHELL: Interpreter = { values: set('-o', '+o', '-O', '+O', '--rcfile', '--init-file'), inline: set('-s', '-') }
const PYTHON: Interpreter = { values: set('-W', '-X', '-Q'), inline: set('-c', '-'), module: set('-m') }
const NODE: Interpreter = { values: set('-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--conditions', '-C', '--input-type', '--title'), inline: set('-e', '--eval', '-p', '--print', '-') }
const INTERPRETERS: Record<string, Interpreter> = {
  sh: SHELL, bash: SHELL, dash: SHELL, zsh: SHELL, ksh: SHELL,
  node: NODE, nodejs: NODE,
  bun: { values: set('-r', '--preload', '--cwd', '--env-file', '--config'), inline: set('-e', '--eval', '-p', '--print') },
  tsx: { values: set('--tsconfig', '--env-file'), inline: set('-e', '--eval', '-p', '--print') },
  python: PYTHON, python3: PYTHON,
  ruby: { values: set('-I', '-r', '-C', '-E', '-F'), inline: set('-e') },
  perl: { values: set('-I', '-M', '-m'), inline: set('-e', '-E') },
  php: { values: set('-c', '-d', '-z'), inline: set('-r') },
  source: { values: set(), inline: set() },
  '.': { values: set(), inline: set() },
}

/** The script word of an interpreter's argv (`python3 -u x.py` → x.py): null when unknown now, undefined when no file runs. */
function interpreterScript(words: readonly (string | null)[], interpreter: Interpreter): string | null | undefined {
  for (let index = 1; index < words.length; index++) {
    const word = words[index]
    if (word === null) return null
    if (word === '--') return words[index + 1] ?? undefined
    if (!word.startsWith('-') && !word.startsWith('+')) return word
    const key = word.includes('=') ? word.slice(0, word.indexOf('=')) : word
    if (interpreter.inline.has(key)) return undefined
    if (interpreter.module?.has(key)) return null
    if (interpreter.values.has(key) && !word.includes('=')) index++
  }
  return undefined
}

const PROJECT_DIR = /\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g

function isFileOrAbsent(path: string): boolean {
  try {
    const stat = lstatSync(path)
    // a symlink counts: the registry protects it as given and at its target
    return stat.isFile() || stat.isSymbolicLink()
  } catch {
    // not there yet: registered too, so that a confined command cannot plant it
    return true
  }
}

class Collector {
  readonly files = new Set<string>()
  readonly unknown: string[] = []
  constructor(private workspace: string, private command: string) {}

  say(why: string): void {
    this.unknown.push(`${JSON.stringify(this.command)}: ${why}`)
  }

  add(word: string): void {
    const path = isAbsolute(word) ? resolve(word) : resolve(this.workspace, word)
    if (isFileOrAbsent(path)) this.files.add(path)
  }

  text(text: string, depth = 0): void {
    if (depth > 8) return this.say('shell commands nested too deep to read')
    const analysis = analyzeShell(text.replace(PROJECT_DIR, this.workspace))
    if (analysis.kind === 'unparseable') return this.say(`the command cannot be read (${analysis.reason}), so the files it runs are not known`)
    let moved = false
    for (const command of analysis.commands) {
      if (command.words[0] === 'cd' || command.words[0] === 'pushd') moved = true
      this.simple(command.words, moved, depth)
    }
  }

  private simple(words: readonly (string | null)[], moved: boolean, depth: number): void {
    const first = words[0]
    if (first === undefined) return
    if (first === null) return this.say('its program is chosen when it runs')
    const inner = unwrap(words)
    if (inner?.kind === 'unknown') return this.say(inner.reason)
    if (inner?.kind === 'script') return inner.script === null ? this.say('a shell script given to it is not known before it runs') : this.text(inner.script, depth + 1)
    if (inner?.kind === 'command') return this.simple(inner.words, moved, depth)
    const name = programName(first)
    const relative = (word: string) => !isAbsolute(word) && moved
    if (first.includes('/')) {
      if (relative(first)) return this.say(`${first} is taken from a directory it changes to`)
      this.add(first)
    }
    const interpreter = Object.hasOwn(INTERPRETERS, name) ? INTERPRETERS[name] : undefined
    if (!interpreter) return
    const script = interpreterScript(words, interpreter)
    if (script === undefined) return
    if (script === null) return this.say(`the script ${name} runs is not known before it runs`)
    if (relative(script)) return this.say(`${script} is taken from a directory it changes to`)
    // `source name` and `bash name` look a bare name up in the working directory too (bash: after PATH for source)
    this.add(script)
  }
}

/**
 * The files the hook commands run from disk (see the top of this file).
 * Requires the shell parser to be loaded (`loadShellParser`).
 */
export function hookScripts(commands: readonly string[], workspace: string): HookScripts {
  const files = new Set<string>()
  const unknown: string[] = []
  for (const command of new Set(commands)) {
    const collector = new Collector(workspace, command)
    collector.text(command)
    for (const file of collector.files) files.add(file)
    unknown.push(...collector.unknown)
  }
  return { files: [...files].sort(), unknown }
}
