/** A `Bash(...)` specifier matched against one simple command as Claude Code documents it, deny and ask also loosely, since reordering flags must not step around a deny (docs/decisions/2026-12-01-permission-rule-matching.md). */

export const UNKNOWN_WORD = '\u0000'

export interface BashPattern {
  /** the first word when it is literal (for indexing), else undefined */
  head?: string
  strict(text: string): boolean
  /** present when the pattern has flags to match as a set; takes the command's `splitFlags` */
  loose?(command: SplitWords): boolean
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
  const result: BashPattern = { strict }
  if (!words[0].includes('*')) result.head = words[0]
  // the loose form: the pattern's flags as a set plus its other words in order
  const { flags, rest } = splitFlags(words)
  if (flags.size) {
    const restMatch = compileStrict(legacy ? `${rest} *` : rest)
    result.loose = (command) => {
      for (const flag of flags) if (!command.flags.has(flag)) return false
      return restMatch(command.rest)
    }
  }
  return result
}
