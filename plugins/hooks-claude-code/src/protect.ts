/**
 * Hooks run unconfined, so the files they come from must not be writable by a
 * confined command — otherwise a model could plant a hook (or delete one) and
 * have it run outside the sandbox later. The rule, kept small on purpose:
 *
 * 1. The writable roots are the plugin's workspace and `writableRoots`, plus,
 *    when a sandbox service runs, its workspace and `allowedRoots` (everywhere
 *    a policy could make writable). A settings file outside all of them loads.
 * 2. One inside a writable root loads only under a protected path — `.claude/`,
 *    `.codex/`, `.dsh/`, `.git/` or `.mcp.json` at the top of the root, which
 *    the sandbox keeps read-only (DESIGN §8). Anywhere else it is refused.
 * 3. When a sandbox service runs, the plugin asks it once, at start, how it
 *    would confine a `workspace-write` command (nothing is run) and refuses a
 *    file the answer leaves unprotected: `protected-paths` unenforced (e.g.
 *    Landlock) refuses every file in a writable root; `protected-symlinks`
 *    refuses one whose protected entry is a symlink; `absent-protected-paths`
 *    refuses one whose protected entry did not exist at start (a confined
 *    command may have created it; the sandbox only removes such entries when
 *    the call ends). Any other unenforced item naming protected paths, a
 *    partial answer without the list, or a sandbox that fails to answer also
 *    refuses. A sandbox reporting itself unavailable confines nothing, so no
 *    confined command can run to write the file: rule 2 alone applies.
 * 4. Without a sandbox service, rule 2 alone applies.
 *
 * Both the path as configured and its real path (through symlinks) are checked.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { describeError, KernelError } from '@dsh/kernel'

export const PROTECTED_DIRS = ['.claude', '.codex', '.dsh', '.git'] as const
export const PROTECTED_FILES = ['.mcp.json'] as const
const PROTECTED_NAMES: readonly string[] = [...PROTECTED_DIRS, ...PROTECTED_FILES]

/** What the plugin knows of the sandbox's protection of protected paths. */
export type SandboxView =
  | { kind: 'absent' }
  | { kind: 'unavailable'; reason: string; roots: readonly string[] }
  | { kind: 'failed'; reason: string; roots: readonly string[] }
  | {
    kind: 'described'
    backend: string
    full: boolean
    /** the backend's unenforced items (ids such as `protected-paths`); undefined when it did not say */
    unenforced?: readonly string[]
    roots: readonly string[]
    /** protected entries (absolute) that did not exist when the sandbox was asked */
    absentAtStart: ReadonlySet<string>
  }

/** The part of the sandbox service this plugin uses (the service is optional). */
export interface SandboxLike {
  confine(argv: string[], policy: { mode: 'workspace-write'; workspace: string }): unknown
  readonly defaults?: { readonly workspace?: string; readonly allowedRoots?: readonly string[] }
}

function absentEntries(roots: readonly string[]): Set<string> {
  const absent = new Set<string>()
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) if (!existsSync(join(root, name))) absent.add(join(root, name))
  }
  return absent
}

/** Ask the sandbox how it would confine a workspace-write command in its workspace. Nothing is run. */
export async function describeSandbox(sandbox: SandboxLike | undefined, workspace: string): Promise<SandboxView> {
  if (!sandbox || typeof sandbox.confine !== 'function') return { kind: 'absent' }
  const target = typeof sandbox.defaults?.workspace === 'string' ? sandbox.defaults.workspace : workspace
  const allowed = Array.isArray(sandbox.defaults?.allowedRoots) ? sandbox.defaults!.allowedRoots!.filter((root) => typeof root === 'string') : []
  const roots = [...new Set([target, ...allowed].map((root) => resolve(root)))]
  try {
    const absentAtStart = absentEntries(roots)
    const confined = (await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: target })) as Record<string, unknown> | undefined
    // nothing ran; let the sandbox forget the dry run
    if (typeof confined?.cleanup === 'function') (confined.cleanup as () => unknown)()
    const backend = typeof confined?.backend === 'string' ? confined.backend : 'unknown'
    const unenforced = confined?.unenforced
    const list = Array.isArray(unenforced) && unenforced.every((item) => typeof item === 'string') ? unenforced as string[] : undefined
    return { kind: 'described', backend, full: confined?.enforcement === 'full', unenforced: list, roots, absentAtStart }
  } catch (error) {
    if (KernelError.is(error, 'SANDBOX_UNAVAILABLE')) return { kind: 'unavailable', reason: describeError(error), roots }
    return { kind: 'failed', reason: describeError(error), roots }
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

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/** The protected entry (`.claude`, `.mcp.json`, ...) a path inside `root` lies under, if any. */
function protectedEntry(path: string, root: string): string | undefined {
  const rel = relative(root, path)
  const first = rel.split(sep)[0]
  if ((PROTECTED_DIRS as readonly string[]).includes(first) && rel !== first) return first
  if ((PROTECTED_FILES as readonly string[]).includes(rel)) return rel
}

/** Why the sandbox leaves `entry` (absolute) writable, if it does. */
function gap(view: Extract<SandboxView, { kind: 'described' }>, entry: string): string | undefined {
  if (view.full) return
  if (!view.unenforced) return `the ${view.backend} sandbox enforces its policy only partially without saying what it leaves out`
  for (const item of view.unenforced) {
    if (item === 'protected-symlinks' && !isSymlink(entry)) continue
    if (item === 'absent-protected-paths') {
      if (!view.absentAtStart.has(entry)) continue
      return `${entry} did not exist when the kernel started and the ${view.backend} sandbox cannot protect a protected path that is absent when a call begins, so a confined command may have created it (restart once the file is yours)`
    }
    if (item.includes('protected')) return `the ${view.backend} sandbox cannot keep protected paths read-only here (${item})`
  }
}

/** Why `file` must not be loaded, or `undefined` when it may be. */
export function refusal(file: string, pluginRoots: readonly string[], view: SandboxView): string | undefined {
  const roots = view.kind === 'absent' ? pluginRoots : [...pluginRoots, ...view.roots]
  const candidates = [...new Set([resolve(file), real(file)])]
  for (const rootPath of new Set(roots)) {
    for (const root of new Set([resolve(rootPath), real(rootPath)])) {
      for (const path of candidates) {
        if (!inside(path, root)) continue
        const what = path === resolve(file) ? file : `${file} (really ${path})`
        const entry = protectedEntry(path, root)
        if (!entry) {
          return `${what} lies inside the writable root ${root} but not under a protected path (${PROTECTED_NAMES.join(', ')}): a confined command could rewrite it, and hooks run unconfined`
        }
        if (view.kind === 'failed') return `${what} lies inside the writable root ${root} and the sandbox could not say whether it protects ${entry}: ${view.reason}`
        if (view.kind !== 'described') continue
        const why = gap(view, join(root, entry))
        if (why) return `${what} lies inside the writable root ${root}, and ${why}`
      }
    }
  }
}
