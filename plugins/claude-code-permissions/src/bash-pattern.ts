/** A `Bash(...)` specifier matched against one simple command as Claude Code documents it, deny and ask also loosely, since reordering flags must not step around a deny (docs/decisions/2026-12-01-permission-rule-matching.md). */

export const UNKNOWN_WORD = '\u0000'

export interface BashPattern {
  /** the first word when it is literal (for indexing), else undefined */
  head?: string
  strict(text: string): boolean
  /** present when the pattern has flags to match as a set; takes the command's `splitFlags` */
  loose?(command: SplitWords): boolean
  /**
   * What the words of a command this pattern meets must hold, one list for each way it can meet
   * them (the strict text, the loose flags): `s<piece>`, a piece of the pattern that lies inside one
   * word; `f<letter>`, a short flag's letter, inside a cluster of short flags (`-rf`). A command whose
   * words fail one item of every list cannot meet the pattern: the launcher passes such an exec by
   * itself (docs/decisions/2026-12-02-exec-rules.md).
   */
  needs: string[][]
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function globRegex(pattern: string): RegExp {
  let body: string
  if (pattern.endsWith(':*')) {
    body = `${pattern.slice(0, -2).split('*').map(escape).join('[\\s\\S]*')}(?: [\\s\\S]*)?`
  } else if (pattern.endsWith(' *')) {
    body = `${pattern.slice(0, -2).split('*').map(escape).join('[\\s\\S]*')}(?: [\\s\\S]*)?`
  } else {
    body = pattern.split('*').map(escape).join('[\\s\\S]*')
  }
  return new RegExp(`^${body}$`)
}

function compileStrict(pattern: string): (text: string) => boolean {
  if (!pattern.includes('*')) return (text) => text === pattern
  const regex = globRegex(pattern)
  return (text) => regex.test(text)
}

const SHORT_FLAGS = /^-[A-Za-z0-9]+$/
const LONG_FLAG = /^--[A-Za-z0-9][A-Za-z0-9-]*(=.*)?$/

export interface SplitWords {
  flags: ReadonlySet<string>
  /** the words that are not flags, joined by spaces */
  rest: string
}

/** Split words into flags (short clusters split into single letters) and the rest. */
export function splitFlags(words: readonly string[]): SplitWords {
  const flags = new Set<string>()
  const rest: string[] = []
  for (const word of words) {
    if (SHORT_FLAGS.test(word)) for (const letter of word.slice(1)) flags.add(`-${letter}`)
    else if (LONG_FLAG.test(word)) flags.add(word)
    else rest.push(word)
  }
  return { flags, rest: rest.join(' ') }
}

export function compileBashPattern(specifier: string): BashPattern {
  const pattern = specifier.trim().replace(/\s+/g, ' ')
  const strict = compileStrict(pattern)
  const legacy = pattern.endsWith(':*')
  const words = (legacy ? pattern.slice(0, -2) : pattern).split(' ')
  // Why pieces: each literal run between spaces and `*` of the text the regex anchors (`:*` is not in it) lies inside one word
  const pieces = (text: string) => text.split(/[ *]/).filter(Boolean).map((piece) => `s${piece}`)
  const result: BashPattern = { strict, needs: [pieces(legacy ? pattern.slice(0, -2) : pattern)] }
  if (!words[0].includes('*')) result.head = words[0]
  // the loose form: the pattern's flags as a set plus its other words in order
  const { flags, rest } = splitFlags(words)
  if (flags.size) {
    // a long flag is a whole word; a short one a letter of a word starting with `-` (which may sit after a `/` in a program's path)
    const flagNeeds = [...flags].map((flag) => (flag.startsWith('--') ? `s${flag}` : `f${flag.slice(1)}`))
    result.needs.push([...pieces(rest), ...flagNeeds])
    const restMatch = compileStrict(legacy ? `${rest} *` : rest)
    result.loose = (command) => {
      for (const flag of flags) if (!command.flags.has(flag)) return false
      return restMatch(command.rest)
    }
  }
  return result
}
