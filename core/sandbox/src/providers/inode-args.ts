/**
 * `--inode PATH DEV:INO` for the launcher: what the host resolved a path to
 * (its device and inode, from lstat), for each path the launcher then opens
 * by name — a writable root's rule, the working directory, a bind's
 * source. Between the host's resolution and the launcher's open, a
 * concurrent call that can write the path's parent could swap it for a
 * link or another directory; the launcher opens every such path with
 * O_NOFOLLOW and refuses an inode other than this one
 * (native/landlock-run/identity.c, docs/decisions/2026-12-02-protected-ancestors.md).
 */
import { lstatSync } from 'node:fs'

/** `DEV:INO` of `path` itself (never followed), or undefined when it does not exist. */
export function identityOf(path: string): string | undefined {
  try {
    // Why bigint: inode numbers of some filesystems (xfs, overlayfs) exceed 2^53
    const st = lstatSync(path, { bigint: true })
    return `${st.dev}:${st.ino}`
  } catch {
    return undefined
  }
}

/** The launcher's `--inode` arguments for `paths`, each once; `known` holds identities already taken. */
export function inodeArgs(paths: Iterable<string>, known: ReadonlyMap<string, string> = new Map()): string[] {
  const args: string[] = []
  const seen = new Set<string>()
  for (const path of paths) {
    if (seen.has(path)) continue
    seen.add(path)
    // Why skip an absent one: the launcher's open of it fails anyway, or it is a mount point the launcher makes
    const id = known.get(path) ?? identityOf(path)
    if (id) args.push('--inode', path, id)
  }
  return args
}
