/**
 * Finding the binaries a backend runs, once, at probe time. Never through
 * PATH: a fake `bwrap` first on PATH would otherwise run the command
 * unconfined while the call reports full enforcement. System binaries are
 * looked for in fixed directories and must be owned by root (or by us) and
 * writable by nobody else; the launcher is the one this package ships
 * (launcher.ts).
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

export const SYSTEM_DIRS: readonly string[] = ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin']

export type Found = { path: string } | { reason: string }

/** Why a file may not be trusted as a sandbox binary (or, `executable` false, as the file that vouches for one), or undefined when it may be. */
export function distrust(path: string, executable = true): string | undefined {
  const uid = process.getuid?.() ?? 0
  for (const p of [path, dirname(path)]) {
    const st = statSync(p)
    // Why: whoever can rewrite the binary or swap it in its directory decides what "confined" means
    if (st.uid !== 0 && st.uid !== uid) return `${p} is owned by uid ${st.uid}`
    if (st.mode & 0o022) return `${p} is writable by group or others`
  }
  const st = statSync(path)
  if (!st.isFile()) return `${path} is not a regular file`
  if (!executable) return undefined
  try {
    accessSync(path, constants.X_OK)
  } catch {
    return `${path} is not executable`
  }
  return undefined
}

/** The real path of a trusted system binary `name` in `dirs`. */
export function findSystemBinary(name: string, dirs: readonly string[] = SYSTEM_DIRS): Found {
  const reasons: string[] = []
  for (const dir of dirs) {
    let real: string
    try {
      real = realpathSync(join(dir, name))
    } catch {
      continue
    }
    const why = distrust(real)
    if (!why) return { path: real }
    reasons.push(why)
  }
  return { reason: reasons.length ? reasons.join('; ') : `${name} was not found in ${dirs.join(', ')}` }
}

/** The real path of a trusted launcher binary at `path`. */
export function checkBinary(path: string): Found {
  let real: string
  try {
    real = realpathSync(path)
  } catch {
    return { reason: `${path} does not exist` }
  }
  const why = distrust(real)
  return why ? { reason: why } : { path: real }
}
