/**
 * Where a spilled text goes and how its file is created:
 * `<dirname(session.path)>/../spill/<session id>/<call id>.txt`, created
 * exclusively with mode 0600. A session id is already restricted to
 * `[A-Za-z0-9._-]` by the kernel; a call id is whatever the caller sent.
 */
import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, mkdir, open, unlink, type FileHandle } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { Session } from '@dsh/kernel'

const UNSAFE = /[^A-Za-z0-9_-]/g
const MAX_NAME = 64
const MAX_TRIES = 100

/**
 * A file name stem for a call id. Call ids are hostile input: everything but
 * letters, digits, `_` and `-` becomes `_` (so no `/`, no `..`, no leading
 * dot), and the stem is at most 64 characters. An id that had to be changed
 * gets a digest of the original appended, so two different ids never map to
 * the same stem.
 */
export function spillStem(callId: string): string {
  const cleaned = callId.replace(UNSAFE, '_').slice(0, MAX_NAME)
  if (cleaned && cleaned === callId) return cleaned
  const digest = createHash('sha256').update(callId).digest('hex').slice(0, 12)
  return `${cleaned || 'call'}-${digest}`
}

/** The spill directory of a session. */
export function spillDir(session: Session): string {
  return resolve(dirname(session.path), '..', 'spill', session.id)
}

async function realDirectory(path: string): Promise<void> {
  const stat = await lstat(path)
  if (!stat.isDirectory()) throw new Error(`${path} is not a directory`)
}

/** Create the spill directory (0700) and a new spill file (0600) in it. */
export async function createSpillFile(session: Session, callId: string): Promise<{ path: string; handle: FileHandle }> {
  const dir = spillDir(session)
  try {
    // level by level, each checked before it is used: a symlink planted at
    // either level would send the text (and new directories) elsewhere
    await mkdir(dirname(dir), { recursive: true, mode: 0o700 })
    await realDirectory(dirname(dir))
    await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
    await realDirectory(dir)
  } catch (error) {
    throw new Error(`cannot create the spill directory ${dir}: ${(error as Error).message}`, { cause: error })
  }
  const stem = spillStem(callId)
  for (let i = 0; i < MAX_TRIES; i++) {
    const path = join(dir, i === 0 ? `${stem}.txt` : `${stem}.${i}.txt`)
    try {
      // O_EXCL: never write into an existing file, nor through a symlink planted at this name
      const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
      return { path, handle }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new Error(`cannot create the spill file ${path}: ${(error as Error).message}`, { cause: error })
      }
    }
  }
  throw new Error(`no free spill file name for ${stem} in ${dir} after ${MAX_TRIES} tries`)
}

/** Write all of `bytes`, close; on failure remove the partial file and rethrow. */
export async function writeSpillFile(path: string, handle: FileHandle, bytes: Uint8Array): Promise<void> {
  try {
    await handle.writeFile(bytes)
    await handle.close()
  } catch (error) {
    await handle.close().catch(() => {})
    await unlink(path).catch(() => {})
    throw new Error(`cannot write the spill file ${path}: ${(error as Error).message}`, { cause: error })
  }
}

/** Give up a created file before anything was written to it. */
export async function discardSpillFile(path: string, handle: FileHandle): Promise<void> {
  await handle.close().catch(() => {})
  await unlink(path).catch(() => {})
}
