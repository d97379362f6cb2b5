/**
 * A workspace holding Claude Code settings and the hook scripts they name, and a real kernel on it
 * (workspace-tools and hooks-claude-code, workspace-write on one backend) with a turn to call tools
 * in: the setup of the specs that check hook scripts are kept from confined commands.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createKernel, type Kernel } from 'dsh'
import type { LocalBackend } from '@dsh/sandbox'
import { turnOf } from './kernels.js'

export interface HookWorkspace {
  dirs: { make(prefix: string): string }
  /** the file's kernel list (kernelsDisposedAfterEach) */
  kernels: Kernel[]
  backend: LocalBackend
  /** path in the workspace → its text, written before the kernel starts */
  files: Record<string, string>
  /** hooks-claude-code's config besides its workspace */
  hooks?: Record<string, unknown>
  /** anything else to do to the workspace before the kernel starts */
  prepare?: (ws: string) => void
}

export async function hookWorkspace(o: HookWorkspace) {
  const ws = o.dirs.make('dsh-hook-scripts-')
  for (const [file, text] of Object.entries(o.files)) {
    mkdirSync(dirname(join(ws, file)), { recursive: true })
    writeFileSync(join(ws, file), text)
  }
  o.prepare?.(ws)
  const kernel = await createKernel({
    dataDir: join(ws, '.dsh'),
    sandbox: { mode: 'workspace-write', workspace: ws, backends: [o.backend] },
    plugins: { 'workspace-tools': { workspace: ws }, 'hooks-claude-code': { workspace: ws, ...o.hooks } },
  })
  o.kernels.push(kernel)
  return { ws, kernel, call: turnOf(kernel, 's') }
}
