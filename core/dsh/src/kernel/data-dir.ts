/**
 * The kernel's data directory (`.dsh`) is read-denied to confined commands
 * and the file tools (DESIGN §16.5): its session logs hold every tool result,
 * secrets included, and a later command must not read them back. A
 * restriction of the sandbox service (`ctx.sandbox.restrict`), so it holds
 * whatever the policy's own `readDeny` says; `dataDirReadable: true` turns it
 * off. The file tools still open this session's spill files (workspace-tools).
 */
import type { Context } from 'cordis'
import type {} from '@dsh/sandbox'

export function hideDataDir(ctx: Context, dataDir: string): void {
  const restriction = Object.freeze({ readDeny: Object.freeze([dataDir]) })
  ctx.plugin({
    name: 'dsh-data-dir',
    inject: ['sandbox'],
    apply(ctx: Context) {
      ctx.sandbox.restrict(() => restriction)
    },
  })
}
