/**
 * A result's notes — what its text says besides the output itself (lines or entries left out,
 * an exec the rules refused, what the sandbox put back, the sandbox's remedy) — carried in the
 * value as well. Claude Code and Codex give the model a tool's structured value, not its text,
 * so a note only in the text would never reach it.
 */
export const NOTES_SCHEMA = {
  type: 'array',
  items: { type: 'string' },
  description: 'what the text says besides the output: what was left out or refused and why, each line as the text has it',
} as const

/** `value` with `notes` added when there are any (a value without notes stays as it was). */
export function withNotes<T extends object>(value: T, notes: readonly string[]): T & { notes?: string[] } {
  return notes.length ? { ...value, notes: [...notes] } : value
}
