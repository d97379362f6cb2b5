/**
 * Which entries of a writable root are protected (DESIGN §8, §15.5): the
 * core names, whose loss would let a confined command plant what runs
 * unconfined later (git hooks and config, agent settings, MCP servers, the
 * kernel's own data), always; and `protectedPaths`, the shell start-up
 * files and editor directories other sandboxes protect, by default. Each
 * is a path relative to a directory (`.git`, `.claude`, `.git/hooks`),
 * looked for at the top of every writable root and in the directories up to
 * PROTECTED_DEPTH levels below it. See
 * docs/decisions/2026-12-01-protected-paths-second-round.md.
 */
import { join, sep } from 'node:path'
import { KernelError } from '@dsh/kernel'

/** Protected whatever the configuration says; `.git` as a whole unless `git: 'commit'`. */
export const CORE_PROTECTED: readonly string[] = Object.freeze(['.git', '.dsh', '.claude', '.codex', '.mcp.json'])

/** The default `protectedPaths`: start-up files a shell, git, npm or direnv runs, and editors' workspace settings. */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = Object.freeze([
  '.vscode', '.idea', '.husky', '.envrc', '.gitmodules', '.gitconfig', '.npmrc',
  '.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin',
])

/**
 * What stays read-only inside `.git` under `git: 'commit'`: everything git
 * runs or obeys later (hooks, config and the per-worktree config, the
 * submodules' and linked worktrees' git directories, which hold their own
 * hooks and config, and `info/`, whose attributes pick filter drivers).
 * Objects, refs, the index and the logs stay writable, so `git commit` works.
 */
export const GIT_COMMIT_PROTECTED: readonly string[] = Object.freeze(['.git/hooks', '.git/config', '.git/config.worktree', '.git/info', '.git/modules', '.git/worktrees'])

/** How many directory levels below a writable root protected names are looked for (`a/b/c/.git` at most). */
export const PROTECTED_DEPTH = 3

/** The names every protected path list starts with (the whole default, for seatbelt's profile). */
export const PROTECTED_NAMES: readonly string[] = Object.freeze([...CORE_PROTECTED, ...DEFAULT_PROTECTED_PATHS])

export type GitProtection = 'read-only' | 'commit'

function bad(field: string, message: string, value: unknown): KernelError {
  return new KernelError('INVALID_POLICY', `sandbox policy: ${field} ${message} (got ${JSON.stringify(value) ?? typeof value})`, { details: { field } })
}

/** Check a `protectedPaths` list: relative paths without `.`/`..` parts. Throws INVALID_POLICY naming `field[i]`. */
export function checkProtectedPaths(field: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw bad(field, 'must be an array of relative paths', value)
  return value.map((item, i) => {
    if (typeof item !== 'string' || item === '' || item.includes('\0')) throw bad(`${field}[${i}]`, 'must be a non-empty relative path without NUL', item)
    const parts = item.split('/')
    if (item.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..')) {
      throw bad(`${field}[${i}]`, 'must be a relative path like ".envrc" or ".github/workflows", without "/" at either end, "." or ".." parts', item)
    }
    return parts.join(sep)
  })
}

/** The full protected list of a policy: the core names (`.git` per `git`) and the extra paths. */
export function protectedList(extra: readonly string[], git: GitProtection): string[] {
  const core = git === 'commit' ? [...CORE_PROTECTED.filter((n) => n !== '.git'), ...GIT_COMMIT_PROTECTED.map((p) => p.split('/').join(sep))] : [...CORE_PROTECTED]
  return [...new Set([...core, ...extra])]
}

/**
 * The protected entry a path relative to a writable root lies in or is, by
 * name: one of `names` starting at the root or at a directory up to
 * PROTECTED_DEPTH levels below it. Returned relative to the root.
 */
export function protectedPrefix(rel: string, names: readonly string[]): string | undefined {
  const parts = rel.split(sep)
  // Why case-insensitive off Linux: on macOS and Windows `.GIT` opens `.git`
  const fold = process.platform === 'linux' ? (s: string) => s : (s: string) => s.toLowerCase()
  const folded = parts.map(fold)
  for (let at = 0; at <= PROTECTED_DEPTH && at < parts.length; at++) {
    for (const name of names) {
      const np = name.split(sep).map(fold)
      if (at + np.length > parts.length) continue
      if (np.every((p, i) => folded[at + i] === p)) return join(...parts.slice(0, at + np.length))
    }
  }
  return undefined
}
