/**
 * A plugin tree's stamp: for each file its stat signature (scan.ts) and a
 * SHA-256 of its contents. A later look reads again only the files whose
 * signature changed, or whose signature was taken too soon after the file's
 * last change to be trusted (a write within the same timestamp tick leaves
 * the signature as it was); a file whose signature changed but whose
 * contents did not (`touch`, a build writing the same output) is no change.
 */
import { sameSignature, type CodeScan, type FileLook } from './scan.js'

export interface FileStamp {
  /** the file's stat signature when it was hashed */
  look: FileLook
  hash: string
  /** the signature was taken within one tick of the file's ctime: hash again next time */
  racy: boolean
}

export type CodeStamp = ReadonlyMap<string, FileStamp>

/** Whether `old` still vouches for the file as `look` sees it: the same settled signature. */
const holds = (old: FileStamp | undefined, look: FileLook) => old !== undefined && !old.racy && !look.racy && sameSignature(old.look, look)

/**
 * The stamp of `files` now, and whether their contents differ from `before`'s
 * (a file added or gone counts). With no `before`, every file is hashed.
 */
export function restamp(files: readonly string[], scan: CodeScan, before: CodeStamp = new Map()): { stamp: CodeStamp; changed: boolean } {
  // Why first: the common reload changes nothing, and then `before` is kept as it is, with nothing allocated
  if (before.size === files.length && files.every((file) => holds(before.get(file), scan.look(file)))) return { stamp: before, changed: false }
  const stamp = new Map<string, FileStamp>()
  let changed = before.size !== files.length
  for (const file of files) {
    const look = scan.look(file)
    const old = before.get(file)
    if (holds(old, look)) {
      stamp.set(file, old!)
      continue
    }
    const hash = scan.hash(file)
    if (old?.hash !== hash) changed = true
    stamp.set(file, { look, hash, racy: look.racy })
  }
  return { stamp, changed }
}
