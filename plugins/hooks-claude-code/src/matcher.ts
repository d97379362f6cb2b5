/**
 * Tool-name matchers, as Claude Code and Codex read them: absent, empty or `*`
 * matches every tool; a string of letters, digits, `_` and `|` is an exact
 * name or a list of exact names; anything else is a regular expression tested
 * unanchored against the name (`^Wr.*`, `mcp__.*`).
 */
import type { Matcher } from './types.js'

const EXACT = /^[A-Za-z0-9_|]+$/

const all: Matcher = () => true

/** The compiled matcher, or a message saying why the pattern is not one. */
export function compileMatcher(text: string | undefined): Matcher | string {
  if (text === undefined || text === '' || text === '*') return all
  if (EXACT.test(text)) {
    const names = new Set(text.split('|').filter((name) => name !== ''))
    return (toolName) => names.has(toolName)
  }
  let regex: RegExp
  try {
    regex = new RegExp(text)
  } catch (error) {
    return `not a valid regular expression (${(error as Error).message})`
  }
  return (toolName) => {
    // a global or sticky regex would carry lastIndex between calls
    regex.lastIndex = 0
    return regex.test(toolName)
  }
}
