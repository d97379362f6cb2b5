/**
 * The libraries grep and glob search with — RE2's engine (a 260 KB module),
 * picomatch and ignore — loaded on a search's first call rather than when the
 * plugin is applied: a session that never searches (and every `dsh mcp`
 * start) does not pay for them. `require`, so the search code stays
 * synchronous; each is loaded once per process.
 */
import { createRequire } from 'node:module'
import type Ignore from 'ignore'
import type Picomatch from 'picomatch'
import type * as Re2js from 're2js'

const require = createRequire(import.meta.url)
let re2: typeof Re2js.RE2JS | undefined
let glob: typeof Picomatch | undefined
let gitignore: typeof Ignore | undefined

export function re2js(): typeof Re2js.RE2JS {
  return (re2 ??= (require('re2js') as typeof Re2js).RE2JS)
}

export function picomatch(): typeof Picomatch {
  return (glob ??= require('picomatch') as typeof Picomatch)
}

export function ignore(): typeof Ignore {
  return (gitignore ??= require('ignore') as typeof Ignore)
}
