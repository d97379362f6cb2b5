/**
 * A file's change stamp: device, inode, size and both times in nanoseconds.
 * Two equal stamps mean the file was not rewritten or replaced in between, so
 * a reader can check stamps before every call and re-read only what changed.
 */
import { statSync } from 'node:fs'
import { describeError } from '@dsh/kernel'

/** `'missing'` for a file that does not exist, `error:<code>` for one that cannot be examined. */
export function fileStamp(file: string): string {
  try {
    const stat = statSync(file, { bigint: true, throwIfNoEntry: false })
    if (!stat) return 'missing'
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code ?? describeError(error)}`
  }
}
