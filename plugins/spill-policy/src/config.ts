/**
 * The configuration of spill-policy, checked when the plugin loads. A bad
 * value fails with its path and the value (`$.maxInlineBytes expected number
 * >= 1024 but got -1`).
 */
import Schema from 'schemastery'

export interface Config {
  /** the most UTF-8 bytes of text a result keeps inline; more is spilled to a file */
  maxInlineBytes: number
  /** tools whose results are never spilled */
  exempt: string[]
}

/** Below this the reference line and link alone may not fit. */
export const MIN_INLINE_BYTES = 1024

export const Config: Schema<Config> = Schema.object({
  maxInlineBytes: Schema.natural().min(MIN_INLINE_BYTES).default(16 * 1024)
    .description('Most UTF-8 bytes of text a result keeps inline. Larger text is written to a spill file and replaced by a head/tail preview and a reference that fit in this many bytes.'),
  exempt: Schema.array(Schema.string()).default(['read'])
    .description('Tools whose results are never spilled. `read` opens spill files, so spilling its output would only point at another spill file.'),
})
