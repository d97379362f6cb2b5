/**
 * `dsh --version`: the version in the dsh package's own package.json
 * (one directory above both `src/` and `lib/`).
 */
import { readFileSync } from 'node:fs'

export function dshVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
  return typeof pkg.version === 'string' ? pkg.version : 'unknown'
}
