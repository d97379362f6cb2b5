/** Read/Edit/Write specifiers matched against a path with gitignore semantics and Claude Code's anchors, since rules written for Claude Code must mean the same here (docs/configuration.md; decisions/2026-12-01-permission-rule-matching.md). */
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
