/**
 * A real kernel with the plugin loaded: fake tools whose bodies record that
 * they ran, settings files written into the temp workspace (and a temp home),
 * and an approver that answers as told and records what it was shown.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Context, ForkScope } from 'cordis'
import type { SessionEvent } from '@dsh/kernel'
import * as permissions from '@dsh/claude-code-permissions'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

export const TOOLS = ['bash', 'read', 'write', 'edit', 'custom'] as const

export interface PermissionsKernel extends TestKernel {
  ran: string[]
  home: string
  events(type: string): SessionEvent[]
  write(path: string, content: string): void
  read(path: string): string
  /** plug the plugin (again) with `config`; throws when it fails to start */
  plug(config?: Record<string, unknown>, ctx?: Context): Promise<ForkScope>
  /** answer approvals: 'approved' once, 'denied', or nobody (no approver: unavailable) */
  answer(answer: 'approved' | 'denied'): ApprovalRequestEvent[]
}

export async function permissionsKernel(files: Record<string, string> = {}): Promise<PermissionsKernel> {
  const k = await createTestKernel()
  const home = join(k.dir, 'home')
  mkdirSync(home)
  const write = (path: string, content: string) => {
    const full = join(k.dir, path)
    mkdirSync(join(full, '..'), { recursive: true })
    writeFileSync(full, content)
  }
  for (const [path, content] of Object.entries(files)) write(path, content)
  const ran: string[] = []
  k.ctx.plugin({
    name: 'fake-tools',
    inject: ['tools'],
    apply(ctx) {
      for (const name of TOOLS) ctx.tools.register(testTool(name, () => {
        ran.push(name)
        return `${name} ran`
      }))
    },
  })
  return Object.assign(k, {
    ran,
    home,
    events: (type: string) => k.session.events().filter((event) => event.type === type),
    write,
    read: (path: string) => readFileSync(join(k.dir, path), 'utf8'),
    async plug(config: Record<string, unknown> = {}, ctx: Context = k.ctx) {
      const fork = ctx.plugin(permissions as any, { workspace: k.dir, home, settingsFiles: [], ...config })
      await k.ctx.lifecycle.flush()
      const scope = fork as unknown as { runtime: { error?: unknown; hasError?: boolean } }
      if (scope.runtime.hasError) {
        fork.dispose()
        throw scope.runtime.error
      }
      return fork
    },
    answer: (answer: 'approved' | 'denied') => plugApprover(k.ctx, answer),
  })
}

/** An approver that answers every request as told ('approved' once, or 'denied'); returns what it was shown. */
export function plugApprover(ctx: Context, answer: 'approved' | 'denied'): ApprovalRequestEvent[] {
  const asked: ApprovalRequestEvent[] = []
  ctx.plugin({
    name: 'test-approver',
    apply(ctx: Context) {
      ctx.on('approval/request', (request) => {
        asked.push(request)
        return answer === 'approved' ? { kind: 'approved', grant: 'once' } : { kind: 'denied', reason: 'a person said no' }
      })
    },
  })
  return asked
}

export function settings(permissions: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...extra, permissions })
}

/** Waits for `check` to hold, polling every 10 ms; throws after `ms`. */
export async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
