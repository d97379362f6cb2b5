/**
 * A TMPDIR of this test file's own, for its process and every process it starts: the sandbox's
 * ledger lives under the user's temporary directory and is shared by every dsh process of the
 * user, so another test file's lease or reader could act on this file's records first (put back
 * what a killed holder left before this file's own reader looks). Removed after the file's tests.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll } from 'vitest'

export function usePrivateTmpdir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  const before = process.env.TMPDIR
  process.env.TMPDIR = dir
  afterAll(() => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
    fs.rmSync(dir, { recursive: true, force: true })
  })
  return dir
}
