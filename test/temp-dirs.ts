/**
 * The temporary directories a test file makes (real paths under the OS temp dir), removed by
 * `removeAll()` — called by the file's own afterEach once what used them (a kernel, a context)
 * has stopped.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export function tempDirs(): { make(prefix: string): string; removeAll(): void } {
  const made: string[] = []
  return {
    make(prefix) {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
      made.push(dir)
      return dir
    },
    removeAll() {
      for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
