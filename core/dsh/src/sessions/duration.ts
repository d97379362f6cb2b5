/**
 * `--older-than` durations: a whole number and one unit — `s`, `m`, `h`, `d`
 * or `w` (`90m`, `12h`, `7d`). Anything else is refused, naming the value.
 */
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }
const FORM = /^(\d{1,9})([smhdw])$/

/** Milliseconds, or an explanation of what is wrong. */
export function parseDuration(text: string): { ms: number } | { problem: string } {
  const match = FORM.exec(text)
  if (!match) return { problem: `${JSON.stringify(text)} is not a duration: write a whole number and a unit, s, m, h, d or w (e.g. 7d, 12h)` }
  const ms = Number(match[1]) * UNITS[match[2]]
  if (ms <= 0) return { problem: `${JSON.stringify(text)} is not a positive duration` }
  return { ms }
}
