/**
 * Whether a directory is as it was when it was last listed, for the
 * caches of per-call work that only a listing could tell (the Landlock
 * carve, the protected-path scan): its device, inode, mtime and ctime.
 * Any entry added, removed or renamed changes the mtime and ctime, and a
 * ctime cannot be set back (`touch -d` sets the mtime and moves the ctime
 * forward). File times are coarse (a clock tick), so two changes in one
 * tick leave them equal: a directory changed within RACY_MS of its
 * listing is not trusted to stay recognisable, and its listing is not kept.
 */
import { statSync, type BigIntStats } from 'node:fs'

/** How recent a directory's last change may be for a listing of it to be kept. */
export const RACY_MS = 2000

/** The directory's stamp, or undefined when it is gone or changed too recently to be recognised later. */
export function dirStamp(dir: string, now: number = Date.now()): string | undefined {
  try {
    return stampOf(statSync(dir, { bigint: true }), now)
  } catch {
    return undefined
  }
}

/** `dirStamp` of a stat already taken. */
export function stampOf(st: BigIntStats, now: number = Date.now()): string | undefined {
  if (now - Number(st.ctimeNs / 1_000_000n) < RACY_MS) return undefined
  return `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`
}

/** The stamp to compare a kept one with (no racy check: any difference is a change). */
export function currentStamp(dir: string): string | undefined {
  try {
    const st = statSync(dir, { bigint: true })
    return `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`
  } catch {
    return undefined
  }
}
