// A real kernel with workspace-tools loaded on a fresh workspace, and a
// directory outside it.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import type { ToolResult } from '@dsh/tools'

const temps: string[] = []

export function tmp(prefix: string, base = os.tmpdir()): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, `dsh-wt-${prefix}-`)))
  temps.push(dir)
  return dir
}

export function outsideDir(): string {
  return tmp('outside', fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir())
}

export interface Setup {
  k: TestKernel
  ws: string
  out: string
  /** the audit facts `tool/result` recorded for a call */
  resultEvent(callId: string): Record<string, unknown> | undefined
}

let current: TestKernel | undefined

export async function setup(opts: { mode?: 'read-only' | 'workspace-write' | 'danger-full-access'; config?: Record<string, unknown>; network?: 'off' | 'on' | { allow: string[]; deny?: string[] }; sandbox?: Record<string, unknown> } = {}): Promise<Setup> {
  const ws = tmp('ws')
  const out = outsideDir()
  const k = await createTestKernel({
    sandbox: { workspace: ws, ...(opts.mode ? { mode: opts.mode } : {}), ...(opts.network ? { network: opts.network } : {}), ...opts.sandbox },
    plugins: { 'workspace-tools': opts.config ?? {} },
  })
  current = k
  return {
    k,
    ws,
    out,
    resultEvent: (callId) => k.session.events().find((e) => e.type === 'tool/result' && (e.data as any).callId === callId)?.data as any,
  }
}

export async function teardown(): Promise<void> {
  await current?.cleanup()
  current = undefined
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

export const text = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
