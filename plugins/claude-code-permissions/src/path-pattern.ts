/**
 * Matching `Read(...)` / `Edit(...)` / `Write(...)` specifiers against a path,
 * with gitignore semantics (the `ignore` package, which implements git's
 * rules) and Claude Code's anchors:
 *
 * - `//path` — absolute (`//etc/**` is `/etc/**`);
 * - `~/path` — from the home directory;
 * - `/path` — from the project root, the directory holding the settings
 *   file's `.claude/` (the workspace for inline rules and the managed file);
 * - `./path` and a bare `path` — from the workspace. A bare pattern without a
 *   slash (`*.env`, `.env`) matches at any depth below its base, as in
 *   `.gitignore`; `./.env` only the workspace's own `.env`. A bare
 *   one-directory pattern (`secrets/**`) in a deny or ask rule matches that
 *   directory at any depth; in an allow rule only the workspace's own.
 *
 * A path outside a pattern's base never matches it. Deny and ask patterns
 * compare case-insensitively (a case-insensitive file system opens `.ENV`
 * as `.env`); allow patterns compare exactly.
 */
import ignore, { type Ignore } from 'ignore'
import { statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'

export interface PathBases {
  workspace: string
  home: string
  /** the project root of the rule's source */
  root: string
}

export type PathMatcher = (absolute: string) => boolean

/** `name/**`: a single directory segment and everything below it */
const ONE_DIRECTORY = /^[^/]+\/\*\*$/

export function compilePathPattern(specifier: string, bases: PathBases, caseInsensitive: boolean): PathMatcher {
  // deny and ask treat any path as possibly a directory; allow only one that is
  const maybeDirectory = caseInsensitive ? () => true : isDirectory
  let base: string
  let pattern: string
  if (specifier.startsWith('//')) {
    base = '/'
    pattern = `/${specifier.slice(2)}`
  } else if (specifier === '~' || specifier.startsWith('~/')) {
    base = bases.home
    pattern = specifier === '~' ? '/**' : `/${specifier.slice(2)}`
  } else if (specifier.startsWith('/')) {
    base = bases.root
    pattern = specifier
  } else if (specifier.startsWith('./')) {
    base = bases.workspace
    pattern = `/${specifier.slice(2)}`
  } else {
    base = bases.workspace
    // a deny or ask for a bare one-segment directory (`secrets/**`) means that directory at any depth, as Claude Code documents; an allow means the workspace's own
    pattern = caseInsensitive && ONE_DIRECTORY.test(specifier) ? `**/${specifier}` : specifier
  }
  // `dir/` in gitignore means the directory and so everything below it
  const matcher: Ignore = ignore({ ignorecase: caseInsensitive }).add(pattern)
  return (absolute) => {
    const path = relative(base, absolute)
    // the base itself, or a path outside it: gitignore patterns only speak of paths below their base
    if (path === '' || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path)) return false
    const posix = sep === '/' ? path : path.split(sep).join('/')
    // a directory pattern (`secrets/`) speaks of the directory itself too; we cannot always know a path is one, so ask both
    return matcher.ignores(posix) || (maybeDirectory(absolute) && matcher.ignores(`${posix}/`))
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The absolute path a tool argument names, relative ones resolved against the workspace. */
export function toolPath(value: unknown, workspace: string): string | undefined {
  if (value === undefined) return workspace
  if (typeof value !== 'string' || value === '' || value.includes('\0')) return undefined
  return resolve(workspace, value)
}
