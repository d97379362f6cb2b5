/**
 * Hooks run unconfined, so the files they come from must not be writable by a
 * confined command — otherwise a model could plant a hook (or delete one) and
 * have it run outside the sandbox later. The rule, kept small on purpose:
 *
 * 1. A settings file outside every writable root (the workspace and the
 *    configured `writableRoots`) is accepted.
 * 2. One inside a writable root is accepted only under a protected path the
 *    sandbox keeps read-only there (`.claude/`, `.codex/`, `.dsh/`, `.git/`,
 *    `.mcp.json`, DESIGN §8) — any other place in a writable root is refused.
 * 3. When a sandbox service runs, its active backend must really enforce that
 *    protected path: `enforcement: 'full'`, or `'partial'` with an `unenforced`
 *    list that does not cover the file. A partial backend that does not say
 *    what it left out, or a sandbox that fails to describe itself, refuses.
 *    A sandbox that reports itself unavailable confines nothing, so no
 *    confined command can run to write the file: rule 2 alone applies.
 * 4. Without a sandbox service, rule 2 alone applies.
 *
 * Both the path as configured and its real path (through symlinks) are checked.
 */
import { realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { describeError, KernelError } from '@dsh/kernel'

export const PROTECTED_DIRS = ['.claude', '.codex', '.dsh', '.git'] as const
export const PROTECTED_FILES = ['.mcp.json'] as const

/** What the plugin knows of the sandbox's protection of protected paths. */
export type SandboxView =
  | { kind: 'absent' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'described'; backend: string; full: boolean; unenforced?: readonly string[] }
  | { kind: 'failed'; reason: string }

/** The part of a sandbox service this plugin uses (the service is optional). */
export interface SandboxLike {
  confine(argv: string[], policy: { mode: 'workspace-write'; workspace: string }): unknown
}

/**
 * Ask the sandbox how it would confine a workspace-write command: the backend
 * and what it cannot enforce. Nothing is run.
 */
export async function describeSandbox(sandbox: SandboxLike | undefined, workspace: string): Promise<SandboxView> {
  if (!sandbox || typeof sandbox.confine !== 'function') return { kind: 'absent' }
  try {
    const confined = (await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace })) as Record<string, unknown> | undefined
    const backend = typeof confined?.backend === 'string' ? confined.backend : 'unknown'
    if (confined?.enforcement === 'full') return { kind: 'described', backend, full: true }
    const unenforced = confined?.unenforced
    const list = Array.isArray(unenforced) && unenforced.every((item) => typeof item === 'string') ? unenforced as string[] : undefined
    return { kind: 'described', backend, full: false, unenforced: list }
  } catch (error) {
    if (KernelError.is(error, 'SANDBOX_UNAVAILABLE')) return { kind: 'unavailable', reason: describeError(error) }
    return { kind: 'failed', reason: describeError(error) }
  }
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** The protected entry (`.claude`, `.mcp.json`, ...) a path inside `root` lies under, if any. */
function protectedEntry(path: string, root: string): string | undefined {
  const rel = relative(root, path)
  const first = rel.split(sep)[0]
  if ((PROTECTED_DIRS as readonly string[]).includes(first) && rel !== first) return first
  if ((PROTECTED_FILES as readonly string[]).includes(rel)) return rel
}

function covers(unenforced: string, root: string, path: string, entry: string): boolean {
  const target = isAbsolute(unenforced) ? unenforced : join(root, unenforced)
  return inside(path, target) || inside(join(root, entry), target) || inside(target, join(root, entry))
}

/** Why `file` must not be loaded, or `undefined` when it may be. */
export function refusal(file: string, roots: readonly string[], view: SandboxView): string | undefined {
  const candidates = [...new Set([resolve(file), real(file)])]
  for (const rootPath of roots) {
    for (const root of new Set([resolve(rootPath), real(rootPath)])) {
      for (const path of candidates) {
        if (!inside(path, root)) continue
        const entry = protectedEntry(path, root)
        if (!entry) {
          return `${file} lies inside the writable root ${root} but not under a protected path (${[...PROTECTED_DIRS, ...PROTECTED_FILES].join(', ')}): a confined command could rewrite it, and hooks run unconfined`
        }
        if (view.kind === 'failed') return `${file} lies inside the writable root ${root} and the sandbox could not say whether it protects ${entry}: ${view.reason}`
        if (view.kind !== 'described' || view.full) continue
        if (!view.unenforced) return `${file} lies inside the writable root ${root} and the ${view.backend} sandbox enforces protected paths only partially without saying which`
        const gap = view.unenforced.find((u) => covers(u, root, path, entry))
        if (gap) return `${file} lies inside the writable root ${root} and the ${view.backend} sandbox cannot keep ${gap} read-only, so a confined command could plant hooks there`
      }
    }
  }
}
