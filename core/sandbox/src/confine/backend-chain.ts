/**
 * The backends `confine()` chooses from: providers registered by plugins
 * (tried first) and the local chain after them, each probed once, lazily, in
 * order; the first whose probe succeeded confines. A probe that throws or
 * answers nothing is a backend that does not work (fail closed).
 */
import { describeError, KernelError } from '@dsh/kernel'
import type { CandidateStatus, ProbeResult, SandboxProvider, SandboxStatus } from '../types.js'

export interface Candidate {
  provider: SandboxProvider
  source: 'provided' | 'local'
}

export class BackendChain {
  private provided: Candidate[] = []
  private probes = new WeakMap<SandboxProvider, Promise<ProbeResult>>()
  private results = new WeakMap<SandboxProvider, ProbeResult>()

  constructor(private readonly local: readonly Candidate[]) {}

  /** Add a provider before the local chain; the returned function removes it. */
  add(provider: SandboxProvider): () => void {
    const entry: Candidate = { provider, source: 'provided' }
    this.provided = [...this.provided, entry]
    return () => {
      this.provided = this.provided.filter((c) => c !== entry)
    }
  }

  /** The first candidate whose probe succeeds, probing lazily in order. */
  async choose(): Promise<Candidate | undefined> {
    for (const candidate of this.candidates()) {
      if (!runs(candidate.provider)) continue
      if ((await this.probeOnce(candidate.provider)).available) return candidate
    }
    return undefined
  }

  /** The chosen one, or SANDBOX_UNAVAILABLE naming why each candidate is not. */
  async chosen(): Promise<Candidate> {
    const chosen = await this.choose()
    if (!chosen) throw new KernelError('SANDBOX_UNAVAILABLE', `no sandbox backend can confine the command: ${this.reasons()}`, { details: { status: this.status() as any } })
    return chosen
  }

  /** Probe every candidate for this platform (once each). */
  async probeAll(): Promise<void> {
    for (const candidate of this.candidates()) if (runs(candidate.provider)) await this.probeOnce(candidate.provider)
  }

  /** Candidates, their probe results so far, and the chosen backend. */
  status(): SandboxStatus {
    const candidates: CandidateStatus[] = this.candidates().map(({ provider, source }) => {
      const probe = runs(provider) ? this.results.get(provider) : { available: false, reason: `not for ${process.platform}` }
      return { name: provider.name, source, platforms: [...provider.platforms], ...(probe ? { probe } : {}) }
    })
    const first = this.candidates().find((c) => runs(c.provider) && this.results.get(c.provider)?.available)
    return { chosen: first?.provider.name, candidates }
  }

  private candidates(): Candidate[] {
    return [...this.provided, ...this.local]
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
}

function runs(provider: SandboxProvider): boolean {
  return provider.platforms.includes(process.platform)
}

/** INVALID_CONFIG for what is no provider. */
export function checkProvider(provider: SandboxProvider): void {
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
