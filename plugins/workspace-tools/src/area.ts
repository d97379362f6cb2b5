/**
 * What one call may read and write, from the sandbox mode that applies to it
 * (`ctx.sandbox.resolveMode`): the same policy `bash` is confined by, enforced
 * here by the tools themselves. Read and ls open the workspace, the writable
 * roots, `readableRoots` and this session's spill directory; write and edit
 * only the writable roots, never a protected path, nothing in `read-only`.
 * `danger-full-access` lifts every check, as it lifts the OS sandbox.
 */
import { realpathSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { isInside, protectedEntryOf, type SandboxMode, type SandboxService } from '@dsh/sandbox'
import type { ToolCall } from '@dsh/tools'
import { PathRefused, resolveTarget, type Target } from './paths.js'
import type { Config } from './config.js'

export interface Area {
  mode: SandboxMode
  workspace: string
  readable: readonly string[]
  writable: readonly string[]
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
  return {
    mode,
    workspace: policy.workspace,
    readable: [policy.workspace, ...policy.writableRoots, ...extra, ...real(spillDir(call))],
    writable: policy.writableRoots,
  }
}

export function checkReadable(area: Area, path: string, input: string): void {
  if (area.mode === 'danger-full-access') return
  if (!area.readable.some((root) => isInside(root, path))) {
    throw new PathRefused(`${input} is outside the workspace (${area.workspace}); read and ls open only the workspace and the writable roots`)
  }
}

/**
 * The existing path a read-side tool (read, ls) may open: resolved, checked
 * against the readable area, and recorded for the call's audit.
 */
export function readableTarget(sandbox: SandboxService, config: Config, call: ToolCall, input: string, field: string): Target {
  const area = areaFor(sandbox, config, call)
  const target = resolveTarget(area.workspace, input, field)
  if (!target.exists) throw new PathRefused(`${input} does not exist`)
  checkReadable(area, target.real, input)
  call.record({ sandbox: { backend: 'in-process', mode: area.mode } })
  return target
}

export function checkWritable(area: Area, path: string, input: string): void {
  if (area.mode === 'danger-full-access') return
  if (area.mode === 'read-only') throw new PathRefused(`the sandbox mode is read-only: nothing is written (${input})`)
  if (!area.writable.some((root) => isInside(root, path))) {
    throw new PathRefused(`${input} is outside the writable roots (${area.writable.join(', ')})`)
  }
  const entry = protectedEntryOf(area.writable, path)
  // Why: git hooks, agent settings and MCP configs written here would later run outside any sandbox
  if (entry) throw new PathRefused(`${input} is inside the protected path ${entry}, which stays read-only`)
}
