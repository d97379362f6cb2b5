/**
 * A plugin tree's stamp: for each file its stat signature (scan.ts) and a
 * SHA-256 of its contents. A later look reads again only the files whose
 * signature changed, or whose signature was taken too soon after the file's
 * last change to be trusted (a write within the same timestamp tick leaves
 * the signature as it was); a file whose signature changed but whose
 * contents did not (`touch`, a build writing the same output) is no change.
 */
import type { CodeScan } from './scan.js'

export interface FileStamp {
  signature: string
  hash: string
  /** the signature was taken within one tick of the file's ctime: hash again next time */
  racy: boolean
}

export type CodeStamp = ReadonlyMap<string, FileStamp>

/**
 * The stamp of `files` now, and whether their contents differ from `before`'s
 * (a file added or gone counts). With no `before`, every file is hashed.
 */
export function restamp(files: readonly string[], scan: CodeScan, before: CodeStamp = new Map()): { stamp: CodeStamp; changed: boolean } {
  const stamp = new Map<string, FileStamp>()
  let changed = before.size !== files.length
  let same = !changed
  for (const file of files) {
    const { signature, racy } = scan.look(file)
    const old = before.get(file)
    if (old && old.signature === signature && !old.racy && !racy) {
      stamp.set(file, old)
      continue
    }
    same = false
    const hash = scan.hash(file)
    if (old?.hash !== hash) changed = true
    stamp.set(file, { signature, hash, racy })
  }
  // Why: the common reload changes nothing; keeping `before` keeps it from allocating per plugin
  return { stamp: same ? before : stamp, changed }
}
