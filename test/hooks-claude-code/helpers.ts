/**
 * Shared set-up for the hooks-claude-code specs: a real kernel on a temp
 * workspace, the real plugin, fake workspace tools whose bodies record that
 * they ran, and builders for Claude Code settings.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ForkScope } from 'cordis'
import type { SessionEvent } from '@dsh/kernel'
import * as hooks from '@dsh/hooks-claude-code'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url))

/** A command running a fixture script, with optional (already safe) arguments. */
export function fixture(name: string, ...args: string[]): string {
  return [`'${join(FIXTURES, name)}'`, ...args].join(' ')
}

type Handler = string | { command: string; timeout?: number; onError?: 'deny' | 'ignore' }

/** One matcher group: `{ matcher, hooks: [{ type: 'command', command, ... }] }`. */
export function group(matcher: string | undefined, ...handlers: Handler[]) {
  const list = handlers.map((h) => (typeof h === 'string' ? { type: 'command', command: h } : { type: 'command', ...h }))
  return matcher === undefined ? { hooks: list } : { matcher, hooks: list }
}

export function preHooks(...groups: ReturnType<typeof group>[]) {
  return { PreToolUse: groups }
}

export interface HooksKernel extends TestKernel {
  /** names of tools whose body ran, in order */
  ran: string[]
  fork: ForkScope
  events(type: string): SessionEvent[]
  write(path: string, content: string): void
  read(path: string): string
}

/** The tools hooks see as Bash, Read, Write, Edit, LS, Grep, Glob, plus `custom` (no mapping). */
export const TOOLS = ['bash', 'read', 'write', 'edit', 'ls', 'grep', 'glob', 'custom', 'failing'] as const

/**
 * A test kernel with fake tools and the plugin loaded with `config` (the
 * workspace is the kernel's temp dir; settings files default to none).
 */
export async function hooksKernel(config: Record<string, unknown> = {}, files: Record<string, string> = {}): Promise<HooksKernel> {
  const k = await createTestKernel()
  // files the plugin finds when it starts (settings, say)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(k.dir, path, '..'), { recursive: true })
    writeFileSync(join(k.dir, path), content)
  }
  const ran: string[] = []
  k.ctx.plugin({
    name: 'fake-workspace-tools',
    inject: ['tools'],
    apply(ctx) {
      for (const name of TOOLS) {
        ctx.tools.register(testTool(name, (args: any) => {
          ran.push(name)
          if (name === 'failing') throw new Error('the tool broke')
          return { content: [{ type: 'text', text: `${name} ran` }], value: { echo: args } }
        }))
      }
    },
  })
  const fork = await plug(k, { settingsFiles: [], codexFiles: [], ...config, workspace: (config.workspace as string | undefined) ?? k.dir })
  return Object.assign(k, {
    ran,
    fork,
    events: (type: string) => k.session.events().filter((event) => event.type === type),
    write(path: string, content: string) {
      const full = join(k.dir, path)
      mkdirSync(join(full, '..'), { recursive: true })
      writeFileSync(full, content)
    },
    read: (path: string) => readFileSync(join(k.dir, path), 'utf8'),
  })
}

/**
 * Plug the plugin as the kernel does and surface a failure to start. It runs
 * in a context with its own `sandbox` slot: empty, or the fake given, so the
 * specs do not depend on which sandbox backend this machine has.
 */
export async function plug(k: TestKernel, config: Record<string, unknown>, sandbox?: unknown): Promise<ForkScope> {
  const ctx = k.ctx.isolate('sandbox')
  if (sandbox) ctx.set('sandbox', sandbox)
  const fork = ctx.plugin(hooks as any, config)
  await k.ctx.lifecycle.flush()
  // cordis records a failed apply on the runtime
  const scope = fork as unknown as { error?: unknown; hasError?: boolean; runtime: { error?: unknown; hasError?: boolean } }
  if (scope.error || scope.hasError || scope.runtime.hasError) throw scope.error ?? scope.runtime.error
  return fork
}

/** Answer every approval request (through the kernel's approval service) with `answer`; records the reasons shown. */
export function approvals(k: TestKernel, answer: 'approved' | 'denied') {
  const asked: Array<string | undefined> = []
  k.ctx.plugin({
    name: 'test-approver',
    apply(ctx) {
      ctx.on('approval/request', (request) => {
        asked.push(request.sandboxMode ? `${request.reason} [${request.sandboxMode}]` : request.reason)
        return answer === 'approved' ? { kind: 'approved', grant: 'once' } : { kind: 'denied', reason: 'a person said no' }
      })
    },
  })
  return asked
}

/** Settings whose PreToolUse hook (every tool) appends a line to `<marks>/<name>`. */
export function markingSettings(marks: string, name: string): string {
  return JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `echo ran >> '${join(marks, name)}'` }] }] } })
}
