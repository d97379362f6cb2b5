import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { deepFreeze, Session, type JsonObject } from '@dsh/kernel'
import type { Execution } from '@dsh/tools'
import { ApprovalService, type ApprovalConfig } from '@dsh/approval'
import { SandboxService } from '@dsh/sandbox'

export interface Setup {
  ctx: Context
  approval: ApprovalService
  session: Session
  dir: string
  exec(name: string, args?: JsonObject, extra?: Partial<Execution>): Execution
  /** Run `apply` as a plugin (its listeners are removed by `dispose()`). */
  plugin(name: string, apply: (ctx: Context) => void): { dispose(): unknown }
  cleanup(): Promise<void>
}

let counter = 0

export async function setup(config: ApprovalConfig = {}, options: { sessionDir?: string; sandbox?: boolean } = {}): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-approval-'))
  const ctx = new Context()
  ctx.plugin(ApprovalService, config)
  // the sandbox service owns the session's mode (a preset switch records it there)
  if (options.sandbox !== false) ctx.plugin(SandboxService, { workspace: dir })
  await ctx.start()
  const session = new Session(options.sessionDir ?? dir, { id: 's' })
  session.beginTurn()
  return {
    ctx,
    approval: ctx.approval,
    session,
    dir,
    exec: (name, args = {}, extra = {}) => Object.freeze({
      callId: `call-${++counter}`,
      name,
      arguments: deepFreeze(args),
      session,
      signal: new AbortController().signal,
      nested: false,
      ...extra,
    }),
    plugin: (name, apply) => ctx.plugin({ name, apply }),
    async cleanup() {
      session.close()
      await ctx.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The events in the session's file on disk (not the in-memory list). */
export function onDisk(path: string): Array<{ seq: number; type: string; data: any }> {
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line))
}

export function approvalEvents(path: string) {
  return onDisk(path).filter((e) => e.type.startsWith('approval/'))
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej })
  return { promise, resolve, reject }
}

/** Let pending I/O callbacks and microtasks run (setImmediate is not faked). */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

// a full disk is made real with a small tmpfs, which needs root
export const canMountTmpfs = process.getuid?.() === 0

/** Mount a 16 KiB tmpfs at a fresh directory; returns it and an unmount function. */
export function smallDisk(parent: string): { dir: string; unmount(): void } {
  const dir = join(parent, 'small')
  mkdirSync(dir)
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir])
  return { dir, unmount: () => execFileSync('umount', [dir]) }
}

/** Append to `path` until the file system refuses (ENOSPC), halving the chunk down to one byte. */
export function fillUp(path: string, byte = 0x0a): void {
  for (let size = 4096; size >= 1;) {
    try {
      appendFileSync(path, Buffer.alloc(size, byte))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      size = Math.floor(size / 2)
    }
  }
}
