/**
 * The `sandbox` service: `confine(argv, policy)` through the first provider
 * whose probe succeeded, providers registered by plugins (tried first, tied
 * to the plugin's scope) and the local chain after them, and the session's
 * sandbox mode. Every failure to confine is an error, never a pass-through:
 * only `danger-full-access` runs unconfined, and says so (`backend: 'none'`).
 */
import { Context, Service } from 'cordis'
import { realpathSync } from 'node:fs'
import { dirname } from 'node:path'
import type { LookupFunction } from 'node:net'
import { describeError, KernelError, ownerName, type Session, type SessionEvent } from '@dsh/kernel'
import { ModeTracker } from './mode.js'
import { checkArgv, isSandboxMode, resolvePolicy } from './policy.js'
import { confinedEnv, spawnEnvOf } from './env.js'
import { leaseProtected, reclaimProtected, recordReclaimed } from './ledger.js'
import { protectedStamp, readProtected, type ProtectedRead } from './ledger-read.js'
import { policyProtected } from './protected.js'
import { checkRegistered, ProtectedRegistry, registeredFiles } from './protected-registry.js'
import { sessionRecorder, type ConfineCall } from './network/events.js'
import { checkNetwork } from './network/check.js'
import type { Decision } from './network/decide.js'
import { isProxied, resolveNetwork, type ResolvedNetwork } from './network/policy.js'
import { NetworkProxy, type ProxyLease } from './network/proxy.js'
import { confineShape } from './confine-shape.js'
import { openExecNotify, type ExecNotifyLease } from './exec/notify-server.js'
import { checkSnapshotBound } from './restore.js'
import { applyRestrictions } from './restrictions.js'
import { checkConfig, SandboxConfig, type Defaults } from './config.js'
import { localProviders } from './providers/local.js'
import {
  SANDBOX_MODES, type CandidateStatus, type Confined, type ProbeResult, type ResolvedPolicy,
  type Description, type SandboxMode, type SandboxPolicy, type SandboxProvider, type SandboxRestrictor, type SandboxStatus,
} from './types.js'

export { SandboxConfig } from './config.js'

declare module 'cordis' {
  interface Context {
    sandbox: SandboxService
  }
}

interface Candidate {
  provider: SandboxProvider
  source: 'provided' | 'local'
}

export class SandboxService extends Service {
  /** the checked configuration, paths absolute */
  readonly defaults: Readonly<Defaults>
  private provided: Candidate[] = []
  private restrictors: readonly SandboxRestrictor[] = []
  private local: Candidate[]
  private probes = new WeakMap<SandboxProvider, Promise<ProbeResult>>()
  private results = new WeakMap<SandboxProvider, ProbeResult>()
  private modes = new ModeTracker()
  private lookup?: LookupFunction
  private proxy?: NetworkProxy
  private network?: ResolvedNetwork
  private registry = new ProtectedRegistry()

  constructor(ctx: Context, config: SandboxConfig = {}) {
    super(ctx, 'sandbox', true)
    this.defaults = checkConfig(config)
    this.lookup = config.lookup
    this.local = localProviders(process.platform, config.backends).map((provider) => ({ provider, source: 'local' as const }))
    // the proxy lives as long as the service: its leases end with it, and a command still running loses its network
    ctx.on('dispose', () => this.proxy?.close())
  }

  /** Register a provider, tried before the local chain; removed with the calling plugin. */
  provide(provider: SandboxProvider): () => void {
    checkProvider(provider)
    const entry: Candidate = { provider, source: 'provided' }
    return this.ctx.effect(() => {
      this.provided = [...this.provided, entry]
      return () => {
        this.provided = this.provided.filter((c) => c !== entry)
      }
    })
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
    return this.ctx.effect(() => this.registry.add({ paths: checked, owner }))
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
    return this.ctx.effect(() => {
      this.restrictors = [...this.restrictors, restrictor]
      return () => {
        this.restrictors = this.restrictors.filter((r) => r !== restrictor)
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
    const chosen = await this.choose()
    if (!chosen) throw new KernelError('SANDBOX_UNAVAILABLE', `no sandbox backend can confine the command: ${this.reasons()}`, { details: { status: this.status() as any } })
    const execs = await openExecs(chosen.provider, resolved, call)
    const policyFor = (extra: Partial<ResolvedPolicy>): ResolvedPolicy => (execs ? { ...resolved, ...extra, execNotify: execs.path } : { ...resolved, ...extra })
    if (!isProxied(resolved.network)) {
      try {
        return this.build(chosen.provider, command, policyFor({}), undefined, call, execs)
      } catch (error) {
        execs?.close()
        throw error
      }
    }
    let lease: ProxyLease | undefined
    try {
      lease = await this.openProxy(chosen.provider, resolved, call)
      return this.build(chosen.provider, command, policyFor({ proxy: lease.endpoint }), lease, call, execs)
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
    const chosen = await this.choose()
    if (!chosen) throw new KernelError('SANDBOX_UNAVAILABLE', `no sandbox backend can confine the command: ${this.reasons()}`, { details: { status: this.status() as any } })
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
    this.choose().catch(() => {})
  }

  /** Probe every candidate for this platform (once each) and report. */
  async probe(): Promise<SandboxStatus> {
    for (const candidate of this.candidates()) if (this.runs(candidate.provider)) await this.probeOnce(candidate.provider)
    return this.status()
  }

  /** Candidates, their probe results so far, and the chosen backend. */
  status(): SandboxStatus {
    const candidates: CandidateStatus[] = this.candidates().map(({ provider, source }) => {
      const probe = this.runs(provider) ? this.results.get(provider) : { available: false, reason: `not for ${process.platform}` }
      return { name: provider.name, source, platforms: [...provider.platforms], ...(probe ? { probe } : {}) }
    })
    return { chosen: this.firstAvailable()?.provider.name, candidates }
  }

  private allowedRoots(): string[] {
    return this.defaults.allowedRoots.flatMap((root) => {
      try {
        return [realpathSync(root)]
      } catch {
        return [] // a root that does not exist allows nothing
      }
    })
  }

  private candidates(): Candidate[] {
    return [...this.provided, ...this.local]
  }

  private runs(provider: SandboxProvider): boolean {
    return provider.platforms.includes(process.platform)
  }

  private firstAvailable(): Candidate | undefined {
    return this.candidates().find((c) => this.runs(c.provider) && this.results.get(c.provider)?.available)
  }

  /** The first candidate whose probe succeeds, probing lazily in order. */
  private async choose(): Promise<Candidate | undefined> {
    for (const candidate of this.candidates()) {
      if (!this.runs(candidate.provider)) continue
      if ((await this.probeOnce(candidate.provider)).available) return candidate
    }
    return undefined
  }

  private probeOnce(provider: SandboxProvider): Promise<ProbeResult> {
    let pending = this.probes.get(provider)
    if (!pending) {
      // Why catch: a probe that throws is a backend that does not work (fail closed), not a crash
      pending = Promise.resolve()
        .then(() => provider.probe())
        .then((result) => checkProbe(provider, result), (error) => ({ available: false, reason: `probe threw: ${describeError(error)}` }))
        .then((result) => {
          this.results.set(provider, result)
          return result
        })
      this.probes.set(provider, pending)
    }
    return pending
  }

  private reasons(): string {
    const parts = this.status().candidates.map((c) => `${c.name}: ${c.probe?.reason ?? 'not probed'}`)
    return parts.length ? parts.join('; ') : `no backend exists for ${process.platform}`
  }

  private build(provider: SandboxProvider, argv: readonly string[], policy: ResolvedPolicy, proxy?: ProxyLease, call?: ConfineCall, execs?: ExecNotifyLease): Confined {
    // Why first: a protected symlink that leads to a writable root is a policy that cannot be enforced (INVALID_POLICY)
    let protectedPaths = policyProtected(policy).paths
    // Why before the backend sees them: what a dead dsh process's call left is put back, and the backend binds that
    const reclaimed = reclaimProtected(protectedPaths, policy.writableRoots)
    if (reclaimed.length) protectedPaths = policyProtected(policy).paths
    const { made, enforcement, unenforced, hidden, restores: own } = confineShape(provider, argv, policy, execChecked(provider, policy, !!execs))
    const restores = withRegistered(own, policy)
    // Why before anything runs: a snapshot over its bound refuses the call (SANDBOX_UNAVAILABLE)
    const lease = leaseProtected(protectedPaths, policy.writableRoots, restores, policy.registeredPaths)
    if (call) recordReclaimed(call, [...reclaimed, ...lease.reclaimed])
    const env = confinedEnv(policy)
    return Object.freeze({
      argv: Object.freeze([...made.argv]),
      backend: made.backend ?? provider.name,
      enforcement,
      unenforced: Object.freeze([...unenforced]),
      env,
      spawnEnv: spawnEnvOf(env, policy.env),
      hidden: Object.freeze([...hidden]),
      restores: Object.freeze([...restores]),
      cleanup: () => {
        // Why first: once the command is gone nothing may use its listener
        proxy?.close()
        execs?.close()
        return lease.release()
      },
    })
  }
}

/**
 * The backend's copy-and-put-back list with the registered regular files added: even where a
 * backend binds them read-only, a command that renames an ancestor away and plants a file at the
 * path would otherwise leave it there; put back whole, the next load reads what was there before.
 * Not one directly in a writable root (`./dsh.yml`): the root itself cannot be renamed from inside.
 */
function withRegistered(restores: readonly string[], policy: ResolvedPolicy): readonly string[] {
  if (!policy.registeredPaths?.length) return restores
  const files = registeredFiles(policy.registeredPaths).filter((path) => !restores.includes(path) && !policy.writableRoots.includes(dirname(path)))
  return files.length ? [...restores, ...files] : restores
}

/**
 * The call's exec listener, when its policy has exec rules, a call to record them for, and a
 * backend whose kernel can stop each exec; undefined otherwise (then `exec-rules` is unenforced).
 */
async function openExecs(provider: SandboxProvider, policy: ResolvedPolicy, call: ConfineCall | undefined): Promise<ExecNotifyLease | undefined> {
  if (!policy.execRules || !call || !canStopExec(provider)) return undefined
  try {
    return await openExecNotify(policy.execRules, call)
  } catch (error) {
    throw new KernelError('SANDBOX_UNAVAILABLE', `the sandbox could not listen for the command's execs: ${describeError(error)}`, { cause: error })
  }
}

function canStopExec(provider: SandboxProvider): boolean {
  try {
    return typeof provider.execNotify === 'function' && provider.execNotify() === true
  } catch {
    return false
  }
}

/** For confineShape: whether the policy's exec rules hold at each exec (`checked`), or are text matching alone. */
function execChecked(provider: SandboxProvider, policy: ResolvedPolicy, checked: boolean): { rules: boolean; checked: boolean } {
  return { rules: !!policy.execRules, checked: checked && canStopExec(provider) }
}

function noHostProxy(provider: SandboxProvider): KernelError {
  return new KernelError('SANDBOX_UNAVAILABLE', `sandbox backend ${provider.name} cannot confine the network by host (network: { allow }); use network "off" or "on" with it`)
}

function checkProvider(provider: SandboxProvider): void {
  const p = provider as Partial<SandboxProvider> | null
  const bad = (what: string) => new KernelError('INVALID_CONFIG', `sandbox provider ${JSON.stringify(p?.name)}: ${what}`)
  if (!p || typeof p !== 'object') throw bad('must be an object')
  if (typeof p.name !== 'string' || !p.name || p.name === 'none') throw bad('needs a name other than "none"')
  if (!Array.isArray(p.platforms)) throw bad('needs a platforms array')
  if (typeof p.probe !== 'function' || typeof p.confine !== 'function') throw bad('needs probe() and confine()')
}

function checkProbe(provider: SandboxProvider, result: ProbeResult): ProbeResult {
  if (!result || typeof result !== 'object' || typeof result.available !== 'boolean') {
    return { available: false, reason: `probe of ${provider.name} returned no result` }
  }
  return { ...result }
}
