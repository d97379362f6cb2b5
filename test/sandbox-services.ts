/**
 * Sandbox services started for a test file, each on its own cordis Context
 * (`start(config)`, over the file's `defaults`), stopped by `stopAll()` in the
 * file's own after-hook; and a provider that confines nothing but keeps the
 * policy of each call.
 */
import fs from 'node:fs'
import os from 'node:os'
import { Context } from 'cordis'
import { SandboxService, type LocalBackend, type ProviderConfined, type SandboxConfig, type SandboxProvider } from '@dsh/sandbox'

export function sandboxServices(defaults: SandboxConfig = {}) {
  const contexts: Context[] = []
  return {
    async start(config: SandboxConfig = {}): Promise<{ ctx: Context; sandbox: SandboxService }> {
      const ctx = new Context()
      // listed first: a service that fails to start is stopped too
      contexts.push(ctx)
      ctx.plugin(SandboxService, { ...defaults, ...config })
      await ctx.start()
      return { ctx, sandbox: ctx.get('sandbox') as SandboxService }
    },
    /** A service on `workspace` whose only provider is a recorder (no process runs). */
    async recorded(workspace: string, confined?: Parameters<typeof recorder>[0]) {
      const started = await this.start({ workspace })
      const provider = recorder(confined)
      started.sandbox.provide(provider)
      return { ...started, provider }
    },
    async stopAll(): Promise<void> {
      for (const ctx of contexts.splice(0)) await ctx.stop()
    },
  }
}

/** The defaults for services on one real backend: every temp dir may be made writable. */
export function onBackend(backend: LocalBackend): SandboxConfig {
  return { backends: [backend], allowedRoots: [fs.realpathSync(os.tmpdir())], workspace: os.tmpdir() }
}

type Policy = Parameters<SandboxProvider['confine']>[1]

/** A provider named `recorder` that keeps the policy of each call in `policies` and answers `confined(argv, policy)`. */
export function recorder(
  confined: (argv: readonly string[], policy: Policy) => ProviderConfined = (argv) => ({ argv: ['/bin/true', ...argv], enforcement: 'full', unenforced: [] }),
): SandboxProvider & { policies: Policy[] } {
  const policies: Policy[] = []
  return {
    name: 'recorder',
    platforms: [process.platform],
    policies,
    probe: async () => ({ available: true }),
    confine: (argv, policy) => (policies.push(policy), confined(argv, policy)),
  }
}
