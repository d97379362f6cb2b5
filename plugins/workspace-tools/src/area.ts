/**
 * What one call may read and write, from the sandbox mode that applies to it
 * (`ctx.sandbox.resolveMode`): the same policy `bash` is confined by, enforced
 * here by the tools themselves. Read and ls open the workspace, the writable
 * roots, `readableRoots` and this session's spill directory; write and edit
 * only the writable roots, never a protected path, nothing in `read-only`.
 * `danger-full-access` lifts every check, as it lifts the OS sandbox.
 */
import { fstatSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { deniedBy, isInside, linkedToDenied, protectedEntryOf, type ReadPolicy, type SandboxMode, type SandboxService } from '@dsh/sandbox'
import type { ToolCall } from '@dsh/tools'
import { PathRefused, resolveTarget, type Target } from './paths.js'
import type { Config } from './config.js'

export interface Area {
  mode: SandboxMode
  workspace: string
  readable: readonly string[]
  writable: readonly string[]
  /** the sandbox policy's readDeny/readAllow, which the file tools honour as bash's backend does */
  read: ReadPolicy
  /** the policy's protected paths (relative names), refused in every writable root */
  protectedPaths: readonly string[]
  /** what dsh loads (the config file, plugin code, settings files) and what restrictions keep read-only (an Edit deny rule's paths) inside the writable roots, refused too */
  registeredPaths: readonly string[]
}

function real(path: string): string[] {
  try {
    return [realpathSync(path)]
  } catch {
    return []
  }
}

/** The kernel's data directory (`.dsh`): the parent of the sessions directory. */
export function dataDirOf(call: ToolCall): string {
  return dirname(dirname(call.session.path))
}

/** spill-policy's directory for this session: `<dataDir>/spill/<session id>`. */
function spillDir(call: ToolCall): string {
  return join(dataDirOf(call), 'spill', call.session.id)
}

export function areaFor(sandbox: SandboxService, config: Config, call: ToolCall): Area {
  const mode = sandbox.resolveMode(call.session, call.approvedSandboxMode)
  const policy = sandbox.resolve({ mode, workspace: config.workspace ?? sandbox.defaults.workspace })
  const extra = config.readableRoots.filter((root) => isAbsolute(root)).flatMap(real)
  const spill = real(spillDir(call))
  return {
    mode,
    workspace: policy.workspace,
    readable: [policy.workspace, ...policy.writableRoots, ...extra, ...spill],
    writable: policy.writableRoots,
    // Why the spill directory allowed: the data directory is denied (session logs), but read must open this session's spilled results
    read: { readDeny: policy.readDeny, readAllow: [...policy.readAllow, ...spill], ...(policy.readDenied ? { readDenied: policy.readDenied } : {}) },
    protectedPaths: policy.protectedPaths,
    registeredPaths: policy.registeredPaths ?? [],
  }
}

export function checkReadable(area: Area, path: string, input: string): void {
  if (area.mode === 'danger-full-access') return
  if (!area.readable.some((root) => isInside(root, path))) {
    throw new PathRefused(`${input} is outside the workspace (${area.workspace}); read and ls open only the workspace and the writable roots`)
  }
  const denied = deniedBy(area.read, path)
  // Why: the sandbox policy hides it from bash; the file tools must not read it for the model instead
  if (denied) throw new PathRefused(`${input} is hidden by the sandbox's readDeny (${denied})`)
}

/** Whether a directory the read policy denies holds an allowed path (which a walk must still reach). */
export function holdsAllowed(area: Area, dir: string): boolean {
  return area.mode !== 'danger-full-access' && area.read.readAllow.some((allowed) => isInside(dir, allowed) && allowed !== dir)
}

/**
 * Refuse to read an open file that is also a file beneath a denied path (a
 * hard link made before the call): its own path passed checkReadable, but
 * its contents are the secret's. Only files with more than one link are
 * looked up.
 */
export function checkNotLinkedToDenied(area: Area, fd: number, input: string): void {
  if (area.mode === 'danger-full-access') return
  const st = fstatSync(fd)
  if (!st.isFile() || st.nlink < 2) return
  const denied = linkedToDenied(area.read, st.dev, st.ino)
  if (denied === 'overflow') throw new PathRefused(`${input} has ${st.nlink} hard links, and the sandbox's readDeny paths are too many (or unlistable) to be sure none of them is one; read it with bash`)
  if (denied) throw new PathRefused(`${input} is a hard link to a file hidden by the sandbox's readDeny (${denied})`)
}

/**
 * The existing path a read-side tool (read, ls) may open: resolved, checked
 * against the readable area, and recorded for the call's audit.
 */
export function readableTarget(sandbox: SandboxService, config: Config, call: ToolCall, input: string, field: string): Target & { area: Area } {
  const area = areaFor(sandbox, config, call)
  const target = resolveTarget(area.workspace, input, field)
  if (!target.exists) throw new PathRefused(`${input} does not exist`)
  checkReadable(area, target.real, input)
  call.record({ sandbox: { backend: 'in-process', mode: area.mode } })
  return { ...target, area }
}

export function checkWritable(area: Area, path: string, input: string): void {
  if (area.mode === 'danger-full-access') return
  if (area.mode === 'read-only') throw new PathRefused(`the sandbox mode is read-only: nothing is written (${input})`)
  if (!area.writable.some((root) => isInside(root, path))) {
    throw new PathRefused(`${input} is outside the writable roots (${area.writable.join(', ')})`)
  }
  const entry = protectedEntryOf(area.writable, path, area.protectedPaths, area.registeredPaths)
  // Why: git hooks, agent settings, MCP configs and dsh's own config or plugin code written here would later run outside any sandbox
  if (entry) throw new PathRefused(`${input} is inside the protected path ${entry}, which stays read-only`)
  const denied = deniedBy(area.read, path)
  // Why: edit reads what it changes, and a hidden file is hidden from bash as well
  if (denied) throw new PathRefused(`${input} is hidden by the sandbox's readDeny (${denied})`)
}
