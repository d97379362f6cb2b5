/**
 * The mounts that hide a policy's denied paths on the backends that build
 * a mount namespace (bwrap, landlock-ns): each existing denied path is
 * covered — an empty tmpfs over a directory, /dev/null over anything
 * else — after every other bind, so it covers what those exposed; then
 * each allowed path inside a hidden one is bound back read-only. A
 * dangling symlink names nothing and is skipped.
 */
import { existsSync, lstatSync } from 'node:fs'
import { isInside } from '../paths.js'
import { hiddenPaths } from '../policy/read.js'
import type { ResolvedPolicy } from '../types.js'

export interface HideMounts {
  /** the denied paths to cover, in order, and whether each is a directory (a tmpfs) or not (/dev/null) */
  hide: { path: string; directory: boolean }[]
  /** allowed paths inside a hidden one, bound back read-only after the covers */
  reveal: string[]
}

export function hideMounts(policy: ResolvedPolicy): HideMounts {
  const hide: HideMounts['hide'] = []
  for (const path of hiddenPaths(policy)) {
    let st
    try {
      st = lstatSync(path)
    } catch {
      continue // gone since: nothing left to hide
    }
    if (!st.isSymbolicLink()) hide.push({ path, directory: st.isDirectory() })
  }
  const reveal = policy.readAllow.filter((path) => policy.readDeny.some((d) => isInside(d, path) && d !== path) && existsSync(path))
  return { hide, reveal }
}

/** The launcher's arguments for the covers (`--namespaces` or `--private-mounts`): each --hide, then the paths shown again. */
export function launcherHideArgs(mounts: HideMounts): string[] {
  return [...mounts.hide.flatMap(({ path }) => ['--hide', path]), ...mounts.reveal.flatMap((path) => ['--mount-ro', path])]
}
