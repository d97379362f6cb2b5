/**
 * Running commands as a person outside the repository would: an environment with no path into the
 * checkout (vitest puts node_modules/.bin on PATH, and npm its own variables), and a directory of
 * the test's own outside it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CACHE_HOME } from '../cache-home.js'

export const REPO = path.resolve(import.meta.dirname, '../..')

/** Whether `dir` lies outside the repository. */
export const isOutside = (dir: string) => path.relative(REPO, dir).startsWith('..')

/** The test's environment without npm's and vitest's variables, PATH without any directory inside the repository, dsh's cache private. */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('npm_') && !key.startsWith('VITEST')) env[key] = value
  env.PATH = (process.env.PATH ?? '').split(':').filter((dir) => dir && isOutside(dir)).join(':')
  env.XDG_CACHE_HOME = CACHE_HOME
  delete env.NODE_PATH
  delete env.NODE_OPTIONS
  return env
}

/** A new directory under the OS temp dir (by its real path), checked to lie outside the repository. */
export function outsideDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  if (!isOutside(dir)) throw new Error(`${dir} lies inside the repository ${REPO}`)
  return dir
}
