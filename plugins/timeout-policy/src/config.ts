/**
 * The configuration of timeout-policy, checked when the plugin loads. A bad
 * value fails with its path and the value (`$.tools.bash expected number >= 1
 * but got -5`).
 */
import Schema from 'schemastery'
import { MAX_TIMER_MS } from '@dsh/kernel'

/** The longest delay `setTimeout` honours; a longer one would fire at once. */
export const MAX_TIMEOUT_MS = MAX_TIMER_MS

export interface Config {
  /** a limit for every tool that declares none; absent = such tools run without a deadline */
  defaultMs?: number
  /** per-tool limits by tool name; they take precedence over what a tool declares */
  tools: Record<string, number>
}

const milliseconds = Schema.natural().min(1).max(MAX_TIMEOUT_MS)

export const Config: Schema<Config> = Schema.object({
  defaultMs: milliseconds
    .description('Deadline in ms for tools that declare no timeoutMs. Unset: those tools run without a deadline.'),
  tools: Schema.dict(milliseconds)
    .default({})
    .description('Deadline in ms per tool name. Takes precedence over the timeoutMs a tool declares.'),
})
