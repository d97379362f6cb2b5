/**
 * The configuration of repeat-tool-reminder, checked when the plugin loads. A
 * bad value fails with its path and the value (`$.thresholds[0] expected
 * number >= 2 but got 1`).
 */
import Schema from 'schemastery'

export interface Config {
  /** run lengths at which a reminder is appended (a run of 1 is no repetition) */
  thresholds: number[]
}

export const Config: Schema<Config> = Schema.object({
  thresholds: Schema.array(Schema.natural().min(2))
    .default([3, 5, 8])
    .description('Consecutive identical calls (same tool, canonically equal arguments) at which a reminder is appended. Each value at least 2.'),
})
