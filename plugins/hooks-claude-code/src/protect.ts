/** Which hook settings files may load: none a confined command could write, since hooks run unconfined (the five rules: docs/architecture.md, Hooks). */
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
    /** protected entries (real paths) the sandbox copies before a call and puts back after it */
    restores: ReadonlySet<string>
    /** the sandbox reads protected files through its ledger (readProtected, protectedStamp) */
    ledger: boolean
  }

/** The settings files registered with the sandbox as protected paths of their own (resolved and real paths). */
export type Registered = ReadonlySet<string>

/** What the sandbox's ledger answers for a protected file (see @dsh/sandbox readProtected). */
export type ProtectedRead = { from: 'disk' | 'copy'; text?: string } | { refused: string }

/** The part of the sandbox service this plugin uses (the service is optional). */
export interface SandboxLike {
  confine(argv: string[], policy: { mode: 'workspace-write'; workspace: string }): unknown
  /** how confine() would confine under the policy, without leasing anything (asked instead of a dry run when there) */
  describe?(policy: { mode: 'workspace-write'; workspace: string }): unknown
  readonly defaults?: { readonly workspace?: string; readonly allowedRoots?: readonly string[] }
  readProtected?(file: string): ProtectedRead
  protectedStamp?(file: string): string
  /** register absolute paths the sandbox protects as it protects `.claude/` (tied to the caller's scope) */
  protect?(paths: string[]): () => void
}

/**
 * Register the settings files with the sandbox (when it can protect
 * absolute paths): each is then kept read-only, or copied and put back,
 * wherever it lies. Returns what is registered; nothing without such a
 * sandbox (rule 2 then refuses a file outside the protected names).
 */
export function protectFiles(sandbox: SandboxLike | undefined, files: readonly string[]): Registered {
  if (!files.length || typeof sandbox?.protect !== 'function') return new Set()
  const paths = [...new Set(files.map((file) => resolve(file)))]
  sandbox.protect(paths)
  return new Set(paths.flatMap((path) => [path, real(path)]))
}

function absentEntries(roots: readonly string[], registered: Registered): Set<string> {
  const absent = new Set<string>()
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) if (!existsSync(join(root, name))) absent.add(join(root, name))
  }
  for (const path of registered) if (!existsSync(path)) absent.add(path)
  return absent
}

/** A sandbox without describe(): confine a command that is never run, and let it forget the lease. */
async function dryRun(sandbox: SandboxLike, policy: { mode: 'workspace-write'; workspace: string }): Promise<unknown> {
  const confined = (await sandbox.confine(['/bin/true'], policy)) as Record<string, unknown> | undefined
  if (typeof confined?.cleanup === 'function') (confined.cleanup as () => unknown)()
  return confined
}

/** Ask the sandbox how it would confine a workspace-write command in its workspace. Nothing is run. */
export async function describeSandbox(sandbox: SandboxLike | undefined, workspace: string, registered: Registered = new Set()): Promise<SandboxView> {
  if (!sandbox || typeof sandbox.confine !== 'function') return { kind: 'absent' }
  const target = typeof sandbox.defaults?.workspace === 'string' ? sandbox.defaults.workspace : workspace
  const allowed = Array.isArray(sandbox.defaults?.allowedRoots) ? sandbox.defaults!.allowedRoots!.filter((root) => typeof root === 'string') : []
  const roots = [...new Set([target, ...allowed].map((root) => resolve(root)))]
  try {
    const absentAtStart = absentEntries(roots, registered)
    const policy = { mode: 'workspace-write' as const, workspace: target }
    const confined = (await (typeof sandbox.describe === 'function' ? sandbox.describe(policy) : dryRun(sandbox, policy))) as Record<string, unknown> | undefined
    const backend = typeof confined?.backend === 'string' ? confined.backend : 'unknown'
    const unenforced = confined?.unenforced
    const list = Array.isArray(unenforced) && unenforced.every((item) => typeof item === 'string') ? unenforced as string[] : undefined
    const restores = new Set(Array.isArray(confined?.restores) ? confined.restores.filter((path): path is string => typeof path === 'string') : [])
    const ledger = typeof sandbox.readProtected === 'function' && typeof sandbox.protectedStamp === 'function'
    return { kind: 'described', backend, full: confined?.enforcement === 'full', unenforced: list, roots, absentAtStart, restores, ledger }
  } catch (error) {
    // Why failed, not unavailable: the protected entries are too large to copy now, not forever
    if (KernelError.is(error, 'SANDBOX_UNAVAILABLE') && (error.details as { bound?: unknown } | undefined)?.bound === 'snapshot') return { kind: 'failed', reason: describeError(error), roots }
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

/** The protected entry (`.claude`, `.mcp.json`, ..., or the registered file itself) a path inside `root` lies under, if any. */
function protectedEntry(path: string, root: string, registered: Registered): string | undefined {
  const rel = relative(root, path)
  const first = rel.split(sep)[0]
  if ((PROTECTED_DIRS as readonly string[]).includes(first) && rel !== first) return first
  if ((PROTECTED_FILES as readonly string[]).includes(rel)) return rel
  // Why after the names: a file under `.claude/` that appears later is still in a read-only entry
  if (registered.has(path) && rel !== '') return rel
}

/** Why the sandbox leaves `entry` (absolute) writable, if it does. */
function gap(view: Extract<SandboxView, { kind: 'described' }>, entry: string): string | undefined {
  if (view.full) return
  if (!view.unenforced) return `the ${view.backend} sandbox enforces its policy only partially without saying what it leaves out`
  const absent = `${entry} did not exist when the kernel started and the ${view.backend} sandbox cannot protect a protected path that is absent when a call begins, so a confined command may have created it (restart once the file is yours)`
  for (const item of view.unenforced) {
    if (item === 'protected-symlinks' && !isSymlink(entry)) continue
    if (item === 'absent-protected-paths') {
      if (!view.absentAtStart.has(entry)) continue
      return absent
    }
    if (item === 'protected-paths' && view.ledger && !isSymlink(entry)) {
      // rule 4: the entry is put back after each call and read through the ledger meanwhile
      if (view.restores.has(real(entry))) continue
      if (view.absentAtStart.has(entry)) return absent
      return `the ${view.backend} sandbox cannot keep protected paths read-only here (${item}) and does not copy and put back ${entry}`
    }
    if (item.includes('protected')) return `the ${view.backend} sandbox cannot keep protected paths read-only here (${item})`
  }
}

/** Why `file` must not be loaded, or `undefined` when it may be. */
export function refusal(file: string, pluginRoots: readonly string[], view: SandboxView, registered: Registered = new Set()): string | undefined {
  const roots = view.kind === 'absent' ? pluginRoots : [...pluginRoots, ...view.roots]
  const candidates = [...new Set([resolve(file), real(file)])]
  for (const rootPath of new Set(roots)) {
    for (const root of new Set([resolve(rootPath), real(rootPath)])) {
      for (const path of candidates) {
        if (!inside(path, root)) continue
        const what = path === resolve(file) ? file : `${file} (really ${path})`
        const entry = protectedEntry(path, root, registered)
        if (!entry) {
          return `${what} lies inside the writable root ${root} but not under a protected path (${PROTECTED_NAMES.join(', ')}), and no sandbox service protects it: a confined command could rewrite it, and hooks run unconfined`
        }
        if (view.kind === 'failed') return `${what} lies inside the writable root ${root} and the sandbox could not say whether it protects ${entry}: ${view.reason}`
        if (view.kind !== 'described') continue
        const why = gap(view, join(root, entry))
        // Why the file too: the entry it lies in may be one the backend leaves writable, while the file itself, registered, is put back
        if (why && !(registered.has(path) && !gap(view, path))) return `${what} lies inside the writable root ${root}, and ${why}`
      }
    }
  }
}

/** How the settings files are stamped and read (see HookStore). */
export interface SettingsReader {
  stamp(file: string): string
  read(file: string): ProtectedRead
}

/** `file` with the root holding it replaced by its real path: the key the sandbox's ledger uses, whatever lies below the root. */
function ledgerKey(file: string, roots: readonly string[]): string {
  const path = resolve(file)
  const root = roots.map((r) => resolve(r)).find((r) => inside(path, r))
  return root ? join(real(root), relative(root, path)) : real(path)
}

/**
 * Rule 4's reader: under a sandbox that puts protected entries back instead
 * of keeping them read-only, every settings file is stamped with the
 * ledger's state and read through it. Otherwise undefined (files are read
 * from disk).
 */
export function ledgerReader(sandbox: SandboxLike | undefined, pluginRoots: readonly string[], view: SandboxView, fileStamp: (file: string) => string): SettingsReader | undefined {
  if (view.kind !== 'described' || !view.ledger || view.full || !view.unenforced?.includes('protected-paths')) return undefined
  const roots = [...pluginRoots, ...view.roots]
  return {
    stamp: (file) => {
      try {
        return `${fileStamp(file)}#${sandbox!.protectedStamp!(ledgerKey(file, roots))}`
      } catch (error) {
        // a ledger that cannot be read makes the file re-read, and the read refuses
        return `ledger-error:${describeError(error)}`
      }
    },
    read: (file) => {
      try {
        return sandbox!.readProtected!(ledgerKey(file, roots))
      } catch (error) {
        return { refused: `the sandbox could not say what ${file} holds outside the calls in progress: ${describeError(error)}` }
      }
    },
  }
}
