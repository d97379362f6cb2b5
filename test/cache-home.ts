/**
 * A cache directory of this test file's own, for every dsh process its tests start: `dsh mcp`
 * keeps its first answers under `$XDG_CACHE_HOME/dsh/first-answer`, which would otherwise be the
 * user's real `~/.cache`. Made when the file first imports this module, removed after its tests.
 * A test of the default location leaves `XDG_CACHE_HOME` out of its child's environment on purpose.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll } from 'vitest'

export const CACHE_HOME = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-test-cache-')))

afterAll(() => {
  fs.rmSync(CACHE_HOME, { recursive: true, force: true })
})

/** The environment for a dsh child process: `base` (the test's own by default) with the private cache. */
export function dshEnv(extra: Record<string, string | undefined> = {}, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries({ ...base, XDG_CACHE_HOME: CACHE_HOME, ...extra })) if (value !== undefined) env[key] = value
  return env
}
