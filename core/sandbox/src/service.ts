/**
 * The `sandbox` service: `confine(argv, policy)` through the first provider
 * whose probe succeeded, providers registered by plugins (tried first, tied
 * to the plugin's scope) and the local chain after them, and the session's
 * sandbox mode. Every failure to confine is an error, never a pass-through:
 * only `danger-full-access` runs unconfined, and says so (`backend: 'none'`).
 * The backends and their probes are backend-chain.ts; one command's
 * confinement is confine-build.ts; the sandboxes built ahead are
 * process/slots.ts, kept here for the service's life.
 */
import { Context, Service } from 'cordis'
import { realpathSync } from 'node:fs'
import type { LookupFunction } from 'node:net'
import { describeError, KernelError, ownerName, type Session, type SessionEvent } from '@dsh/kernel'
import { detachServiceContext, exposeService, raw } from '@dsh/kernel/internals'
import { ModeTracker } from './policy/mode.js'
import { checkArgv, isSandboxMode, resolvePolicy } from './policy/resolve.js'
import { reclaimProtected } from './ledger/lease.js'
import { protectedStamp, readProtected, type ProtectedRead } from './ledger/read.js'
import { policyProtected } from './protected/entries.js'
import { checkRegistered, ProtectedRegistry } from './protected/registry.js'
import { sessionRecorder, type ConfineCall } from './network/events.js'
import { checkNetwork } from './network/check.js'
import type { Decision } from './network/decide.js'
import { isProxied, resolveNetwork, type ResolvedNetwork } from './network/policy.js'
import { NetworkProxy, type ProxyLease } from './network/proxy.js'
import { confineShape } from './confine/shape.js'
import { buildConfined, execChecked, noHostProxy, openExecs, withRegistered } from './confine/build.js'
import { BackendChain, checkProvider } from './confine/backend-chain.js'
import { SlotPool } from './process/slots.js'
import { checkSnapshotBound } from './protected/restore.js'
import { applyRestrictions } from './policy/restrictions.js'
import { checkConfig, SandboxConfig, type Defaults } from './config.js'
import { localProviders } from './providers/local.js'
import {
  SANDBOX_MODES, type Confined, type ResolvedPolicy,
  type Description, type SandboxMode, type SandboxPolicy, type SandboxProvider, type SandboxRestrictor, type SandboxStatus,
} from './types.js'

export { SandboxConfig } from './config.js'

declare module 'cordis' {
  interface Context {
    sandbox: SandboxService
  }
}

/**
 * Methods that never read `this.ctx` (only provide, protect and restrict tie what they add to
 * the caller): read through a plugin's trace without its traps (see exposeService). bash calls
 * resolveMode and confine on every call.
 */
const DIRECT_METHODS = [
  'confine', 'describe', 'checkConnection', 'readProtected', 'protectedStamp', 'protectedRegistered', 'resolve', 'resolveMode',
  'setMode', 'presetPolicy', 'probeInBackground', 'probe', 'status', 'slotsWaiting',
] as const

export class SandboxService extends Service {
  /** the checked configuration, paths absolute */
  readonly defaults: Readonly<Defaults>
  private restrictors: readonly SandboxRestrictor[] = []
  private chain: BackendChain
  /** sandboxes built ahead for the calls' views (process/slots.ts); none with `pool: false` */
  private pool?: SlotPool
  private modes = new ModeTracker()
  private lookup?: LookupFunction
  private proxy?: NetworkProxy
  private network?: ResolvedNetwork
  private registry = new ProtectedRegistry()

  constructor(ctx: Context, config: SandboxConfig = {}) {
    super(ctx, 'sandbox', true)
    this.defaults = checkConfig(config)
    this.lookup = config.lookup
    this.chain = new BackendChain(localProviders(process.platform, config.backends).map((provider) => ({ provider, source: 'local' as const })))
    if (this.defaults.pool) this.pool = new SlotPool({ idleMs: this.defaults.pool.idleMs })
    // Why: with its ctx own data, cordis builds a shadow context for every traced member access (`ctx.sandbox.defaults`)
    detachServiceContext(this)
    exposeService(ctx, 'sandbox', DIRECT_METHODS)
    // the proxy lives as long as the service: its leases end with it, and a command still running loses its network
    ctx.on('dispose', () => {
      this.proxy?.close()
      // Why: a sandbox built for this service's views (its config, its restrictions) is no other's
      this.pool?.close()
    })
  }

  /** Register a provider, tried before the local chain; removed with the calling plugin. */
  provide(provider: SandboxProvider): () => void {
    checkProvider(provider)
    // `this` is cordis's trace (`this.ctx` the caller's); the state is the raw service's, which the direct methods read
    const self = raw(this)
    return this.ctx.effect(() => self.chain.add(provider))
  }

  /**
   * Protect absolute paths (files or directories) as the protected names are
   * protected, in every policy whose writable roots hold them: read-only on
   * the backends that can bind them so, copied and put back on the others (a
   * regular file below the top of a root on every backend), refused by the
   * in-process tools (`protectedEntryOf` with the policy's `registeredPaths`).
   * For what dsh loads (the config file, plugin code, settings files).
   * Removed with the calling plugin; a path that is or holds a writable root
   * makes every policy with that root INVALID_POLICY (never left writable).
   */
  protect(paths: readonly string[]): () => void {
    const checked = checkRegistered(paths)
    const owner = ownerName(this.ctx)
    const self = raw(this)
    return this.ctx.effect(() => self.registry.add({ paths: checked, owner }))
  }

  /** Every path registered with protect() now (as given and as real paths). */
  protectedRegistered(): readonly string[] {
    return this.registry.paths()
  }

  /**
   * Add a restriction to every policy this service resolves from now on (confined commands and
   * the file tools alike): paths joined to `readDeny`, paths kept read-only; removed with the
   * calling plugin. It only narrows; one that throws refuses the policy. See restrictions.ts.
   */
  restrict(restrictor: SandboxRestrictor): () => void {
    if (typeof restrictor !== 'function') throw new KernelError('INVALID_CONFIG', 'ctx.sandbox.restrict() takes a function of the policy')
    // Why the raw service: an assignment through the trace would not reach what confine() (direct) reads
    const self = raw(this)
    return this.ctx.effect(() => {
      self.restrictors = [...self.restrictors, restrictor]
      return () => {
        self.restrictors = self.restrictors.filter((r) => r !== restrictor)
      }
    })
  }

  /**
   * Confine one command, or throw SANDBOX_UNAVAILABLE / INVALID_POLICY. A policy
   * whose network lists hosts needs `call`, the session and call its
   * connections are recorded for (`sandbox/network`).
   */
  async confine(argv: readonly string[], policy: SandboxPolicy, call?: ConfineCall): Promise<Confined> {
    const command = checkArgv(argv)
    const resolved = this.resolve(policy)
    if (resolved.mode === 'danger-full-access') {
      // nothing confines the command, host patterns included: said, not hidden
      const unenforced = Object.freeze(isProxied(resolved.network) ? ['network-hosts'] : [])
      return Object.freeze({ argv: command, backend: 'none', enforcement: 'full' as const, unenforced, env: Object.freeze({}), spawnEnv: Object.freeze({}), hidden: Object.freeze([]), restores: Object.freeze([]), cleanup: () => [] })
    }
    const chosen = await this.chain.chosen()
    const execs = await openExecs(chosen.provider, resolved, call)
    const policyFor = (extra: Partial<ResolvedPolicy>): ResolvedPolicy => (execs ? { ...resolved, ...extra, execNotify: execs.path } : { ...resolved, ...extra })
    if (!isProxied(resolved.network)) {
      try {
        return buildConfined(chosen, command, policyFor({}), { call, execs, pool: this.pool })
      } catch (error) {
        execs?.close()
        throw error
      }
    }
    let lease: ProxyLease | undefined
    try {
      lease = await this.openProxy(chosen.provider, resolved, call)
      return buildConfined(chosen, command, policyFor({ proxy: lease.endpoint }), { proxy: lease, call, execs, pool: this.pool })
    } catch (error) {
      lease?.close()
      execs?.close()
      throw error
    }
  }

  /**
   * How `confine()` would confine a command under `policy` now (backend, enforcement, unenforced,
   * hidden, restores), awaiting the same probe, without a lease: no ledger record written or
   * released, nothing copied, no proxy opened. What dead holders left at the policy's protected
   * entries is put back first, as the call's own reclaim would (the whole-ledger sweep is the first
   * real call's). Throws what `confine()` would (SANDBOX_UNAVAILABLE, `details.bound` `snapshot`
   * for entries over the snapshot bound; INVALID_POLICY).
   */
  async describe(policy: SandboxPolicy): Promise<Description> {
    const resolved = this.resolve(policy)
    if (resolved.mode === 'danger-full-access') {
      return Object.freeze({ backend: 'none', enforcement: 'full' as const, unenforced: Object.freeze(isProxied(resolved.network) ? ['network-hosts'] : []), hidden: Object.freeze([]), restores: Object.freeze([]) })
    }
    const chosen = await this.chain.chosen()
    if (isProxied(resolved.network) && !chosen.provider.networkProxy) throw noHostProxy(chosen.provider)
    // Why first, as build() does: a protected symlink into a writable root is INVALID_POLICY
    const protectedPaths = policyProtected(resolved).paths
    reclaimProtected(protectedPaths, resolved.writableRoots, false)
    const { made, enforcement, unenforced, hidden, restores: own } = confineShape(chosen.provider, ['/bin/true'], resolved, execChecked(chosen.provider, resolved, true))
    const restores = withRegistered(own, resolved)
    checkSnapshotBound(restores)
    return Object.freeze({ backend: made.backend ?? chosen.provider.name, enforcement, unenforced: Object.freeze([...unenforced]), hidden: Object.freeze([...hidden]), restores: Object.freeze([...restores]) })
  }

  /**
   * May dsh itself (web_fetch) connect to host:port for `call` under the
   * service's network policy? The proxy's decision for a confined command
   * (network/check.ts), recorded for the call as `sandbox/network` the same
   * way; the answer carries the address to connect to (nothing resolves the
   * name again) or the reason and remedy.
   */
  checkConnection(host: string, port: number, call: ConfineCall): Promise<Decision> {
    // the defaults are fixed for the service's life: their patterns are normalized once
    this.network ??= resolveNetwork(this.defaults.network, 'sandbox config', 'sandbox.network')
    return checkNetwork(this.network, host, port, sessionRecorder(call), this.lookup)
  }

  /** This call's listener on the proxy (started with the first call that needs it). */
  private async openProxy(provider: SandboxProvider, policy: ResolvedPolicy, call: ConfineCall | undefined): Promise<ProxyLease> {
    if (!isProxied(policy.network)) throw new Error('unreachable: the policy lists no hosts')
    if (!provider.networkProxy) throw noHostProxy(provider)
    if (!call || typeof call.callId !== 'string' || typeof call.session?.write !== 'function') {
      throw new KernelError('INVALID_POLICY', 'sandbox policy: network lists hosts, so confine() needs the call (its session and callId) to record each connection as sandbox/network', { details: { field: 'network' } })
    }
    this.proxy ??= new NetworkProxy({ lookup: this.lookup })
    try {
      return await this.proxy.open(policy.network, provider.networkProxy, sessionRecorder(call))
    } catch (error) {
      throw new KernelError('SANDBOX_UNAVAILABLE', `the sandbox's network proxy could not listen for the command: ${describeError(error)}`, { cause: error })
    }
  }

  /**
   * Read a file under a protected entry as it will be once the confined calls
   * holding the entry have ended: from the copy a call in progress took, as
   * absent when it was, refused when the entry was not put back (ledger-read.ts).
   */
  readProtected(file: string): ProtectedRead {
    return readProtected(file, this.allowedRoots())
  }

  /** A string that changes when what readProtected would answer for `file` may have changed (no lock taken). */
  protectedStamp(file: string): string {
    return protectedStamp(file)
  }

  /** Check a policy against the host's allowed roots and resolve its paths (for in-process enforcement). */
  resolve(policy: SandboxPolicy): ResolvedPolicy {
    const registered = this.registry.paths()
    const defaults = registered.length ? { ...this.defaults, registered, ownerOf: (path: string) => this.registry.ownerOf(path) } : this.defaults
    return applyRestrictions(resolvePolicy(policy, this.allowedRoots(), defaults), this.restrictors)
  }

  /** approved explicit mode > the session's latest `sandbox/mode` event > the configured default. */
  resolveMode(session: Session, approvedExplicit?: SandboxMode): SandboxMode {
    if (approvedExplicit !== undefined) {
      if (!isSandboxMode(approvedExplicit)) throw new KernelError('INVALID_POLICY', `approved sandbox mode ${JSON.stringify(approvedExplicit)} is not one of ${SANDBOX_MODES.join(', ')}`, { details: { field: 'mode' } })
      return approvedExplicit
    }
    return this.modes.sessionMode(session) ?? this.defaults.mode
  }

  /**
   * Set the session's mode: appends a durable (fsynced) `sandbox/mode` event. `preset` is given
   * when the switch is an approval preset's (`approval.setPreset`), whose policy the event records.
   */
  setMode(session: Session, mode: SandboxMode, reason?: string, preset?: { name: string; policy: 'ask' | 'never' }): Promise<SessionEvent<'sandbox/mode'>> {
    if (!isSandboxMode(mode)) throw new KernelError('INVALID_POLICY', `sandbox mode ${JSON.stringify(mode)} is not one of ${SANDBOX_MODES.join(', ')}`, { details: { field: 'mode' } })
    if (reason !== undefined && typeof reason !== 'string') throw new KernelError('INVALID_POLICY', 'sandbox mode reason must be a string', { details: { field: 'reason' } })
    const data: SessionEvent<'sandbox/mode'>['data'] = preset ? { mode, preset: preset.name, policy: preset.policy } : { mode }
    if (reason !== undefined) data.reason = reason
    return session.append('sandbox/mode', data)
  }

  /** The approval policy the session's latest preset switch recorded, if any (approval asks here). */
  presetPolicy(session: Session): 'ask' | 'never' | undefined {
    return this.modes.sessionPolicy(session)
  }

  /**
   * Start choosing the backend now, as `confine()` would (the candidates probed in order until one
   * works), without waiting: a host that will confine commands soon lets the probe's process run
   * while it loads the rest. `confine()` awaits the same probes, so a call made before they end
   * waits for them, and one whose backend failed its probe is refused as without this.
   */
  probeInBackground(): void {
    this.chain.choose().catch(() => {})
  }

  /** Probe every candidate for this platform (once each) and report. */
  async probe(): Promise<SandboxStatus> {
    await this.chain.probeAll()
    return this.status()
  }

  /** Candidates, their probe results so far, and the chosen backend. */
  status(): SandboxStatus {
    return this.chain.status()
  }

  /** The pids of the sandboxes built ahead and waiting now, by lane (backend and mode). */
  slotsWaiting(): Record<string, number> {
    return this.pool?.waiting() ?? {}
  }

  private allowedRoots(): string[] {
    return this.defaults.allowedRoots.flatMap((root) => {
      try {
        return [realpathSync.native(root)]
      } catch {
        return [] // a root that does not exist allows nothing
      }
    })
  }
}
