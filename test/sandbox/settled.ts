/**
 * Waiting, bounded, until directories have stood still long enough for the sandbox's listing caches
 * to keep what they list: the caches' own condition (dir-stamp.ts: a directory changed within
 * RACY_MS of its listing is never kept), polled, instead of a fixed sleep that a coarse or loaded
 * clock could make too short. dir-stamp.ts is private to @dsh/sandbox: imported here on purpose.
 */
import fs from 'node:fs'
import path from 'node:path'
import { dirStamp } from '../../core/sandbox/src/protected/dir-stamp.js'

/** `root` and every directory below it (not through links). */
export function dirsUnder(root: string): string[] {
  const dirs = [root]
  for (let i = 0; i < dirs.length; i++) {
    for (const entry of fs.readdirSync(dirs[i], { withFileTypes: true })) if (entry.isDirectory()) dirs.push(path.join(dirs[i], entry.name))
  }
  return dirs
}

/** Resolves once every one of `dirs` would be kept by a listing cache; throws after `ms`. */
export async function settled(dirs: string[], ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (dirs.some((dir) => dirStamp(dir) === undefined)) {
    if (Date.now() > deadline) throw new Error(`${dirs.filter((dir) => dirStamp(dir) === undefined).join(', ')} did not stand still for ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
