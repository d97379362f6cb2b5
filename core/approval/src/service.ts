/**
 * The `approval` service. A request is logged before anyone is consulted
 * (`approval/asked`, fsynced) and its outcome after (`approval/decided`); a
 * request that cannot be logged is denied. Policy `never` denies here, without
 * consulting anyone, so no listener registered first can answer in its place.
 */
import { randomUUID } from 'node:crypto'
import { Context, Service } from 'cordis'
import { describeError, KernelError, SANDBOX_MODES, Session, snapshot, type JsonObject, type SandboxMode, type SessionEvent } from '@dsh/kernel'
import type { SandboxService } from '@dsh/sandbox'
import type { ApprovalGate, ApprovalOutcome, ApprovalRequest, Execution } from '@dsh/tools'
import { resolveApprovalConfig, type ApprovalConfig, type ResolvedApprovalConfig } from './config.js'
import { consult, type Consultation } from './consult.js'
import type { ApprovalPolicy } from './events.js'
import './events.js'
import { GrantStore, grantKey, type ApprovalGrant } from './grants.js'
import { undecided, type PendingApproval } from './pending.js'
import { getPreset, presetList, type ApprovalPreset } from './presets.js'

declare module 'cordis' {
  interface Context {
    approval: ApprovalService
  }
}

const MODES: ReadonlySet<unknown> = new Set(SANDBOX_MODES)

interface SessionState {
  grants: GrantStore
  /** ids of requests this service is deciding now */
  live: Set<string>
  /** settles once interrupted requests of an earlier process are recorded */
  recovered?: Promise<void>
}

/** What approval asks of the sandbox service, which owns `sandbox/mode`. */
type ModeOwner = Pick<SandboxService, 'setMode' | 'presetPolicy'>

/** A request checked and ready to log. */
interface Prepared {
  id: string
  exec: Execution
  session: Session
  args?: JsonObject
  reason?: string
  sandboxMode?: SandboxMode
  invalid?: string
}

const denied = (reason: string): ApprovalOutcome => ({ kind: 'denied', reason })
const unavailable = (reason: string): ApprovalOutcome => ({ kind: 'unavailable', reason })

export class ApprovalService extends Service implements ApprovalGate {
  readonly settings: Readonly<ResolvedApprovalConfig>
  private root: Context
  private sessions = new WeakMap<Session, SessionState>()
  private lifetime = new AbortController()

  constructor(ctx: Context, config: ApprovalConfig = {}) {
    super(ctx, 'approval', true)
    this.settings = Object.freeze(resolveApprovalConfig(config))
    this.root = ctx.root
  }

  protected override start(): void {
    if (this.lifetime.signal.aborted) this.lifetime = new AbortController()
  }

  protected override stop(): void {
    // pending requests end unavailable rather than outlive the service
    this.lifetime.abort()
  }

  /**
   * Ask for approval of one call. Never rejects: every failure is an outcome,
   * and only `approved` lets the call run.
   */
  async request(input: ApprovalRequest): Promise<ApprovalOutcome> {
    const exec = input?.exec
    const session = exec?.session
    // without a session there is nowhere to log the request first
    if (!(session instanceof Session)) return denied('an approval request needs an execution with an open session')
    const state = this.stateOf(session)
    // every request waits for the same recovery, so requests keep their arrival order
    await (state.recovered ??= this.recover(session).then(() => {}, () => {}))
    const request = this.prepare(input, exec, session)
    const policy = this.policyFor(session)
    const key = request.args && !request.invalid ? grantKey(exec.name, request.args, request.sandboxMode) : undefined
    // under `never` a grant does not apply: deny wins
    const grant = key !== undefined && policy === 'ask' ? state.grants.match(key) : undefined
    state.live.add(request.id)
    try {
      try {
        await session.append('approval/asked', {
          id: request.id,
          callId: String(exec.callId),
          name: String(exec.name),
          ...(request.args ? { arguments: request.args } : {}),
          ...(request.reason !== undefined ? { reason: request.reason } : {}),
          ...(request.sandboxMode ? { sandboxMode: request.sandboxMode } : {}),
          policy,
          ...(grant ? { grantId: grant.id } : {}),
          ...(exec.parent ? { parent: String(exec.parent.callId) } : {}),
          ...(request.invalid ? { invalid: request.invalid } : {}),
        })
      } catch (error) {
        // log-first: a request that is not on disk is never decided
        return denied(`the approval request could not be logged: ${describeError(error)}`)
      }
      // a grant revoked while the request was being logged must not answer it: look again
      const current = grant && key !== undefined && state.grants.match(key)?.id === grant.id ? grant : undefined
      // a grant is recorded for a listener's session answer to a valid request under `ask`
      const decision = await this.decide(request, policy, current, key !== undefined && policy === 'ask')
      const newGrant = decision.outcome.kind === 'approved' && decision.outcome.grant === 'session' && decision.by === 'listener' && key !== undefined
        ? this.newGrant(request)
        : undefined
      try {
        await session.append('approval/decided', {
          id: request.id,
          callId: String(exec.callId),
          name: String(exec.name),
          outcome: decision.outcome,
          by: decision.by,
          ...(grant ?? newGrant ? { grantId: (grant ?? newGrant)!.id } : {}),
        })
      } catch (error) {
        return denied(`the approval decision could not be logged: ${describeError(error)}`)
      }
      if (newGrant) {
        try {
          await session.append('approval/granted', {
            grantId: newGrant.id,
            requestId: request.id,
            callId: newGrant.callId,
            name: newGrant.name,
            arguments: newGrant.arguments as JsonObject,
            ...(newGrant.sandboxMode ? { sandboxMode: newGrant.sandboxMode } : {}),
          })
        } catch (error) {
          // an unlogged grant is no grant, and the log now has a hole: refuse this call too
          return denied(`the session grant could not be logged: ${describeError(error)}`)
        }
        state.grants.add(key!, newGrant)
      }
      return decision.outcome
    } finally {
      state.live.delete(request.id)
    }
  }

  /** Live grants of a session (those granted in it, also before it was reopened, and not revoked). */
  grants(session: Session): readonly ApprovalGrant[] {
    return session instanceof Session ? this.stateOf(session).grants.list() : []
  }

  /**
   * Revoke a grant; logged as `approval/revoked`. The grant stops applying at
   * once, even when the log cannot be written (then this rejects). Resolves
   * false for an unknown id.
   */
  async revoke(session: Session, grantId: string, reason?: string): Promise<boolean> {
    const grant = this.sessions.get(session)?.grants.remove(grantId)
    if (!grant) return false
    await session.append('approval/revoked', { grantId, name: grant.name, ...(typeof reason === 'string' ? { reason } : {}) })
    return true
  }

  /** Requests asked and not decided: `pending` here now, or `interrupted` by a crash. */
  pending(session: Session): PendingApproval[] {
    return undecided(session, this.sessions.get(session)?.live ?? new Set())
  }

  /**
   * Record every interrupted request of the session as `approval/interrupted`
   * (done on the session's first request anyway). Resolves with them.
   */
  async recover(session: Session): Promise<PendingApproval[]> {
    const interrupted = this.pending(session).filter((p) => p.state === 'interrupted')
    for (const p of interrupted) {
      await session.append('approval/interrupted', { id: p.id, callId: p.callId, name: p.name, askedSeq: p.askedSeq })
    }
    return interrupted
  }

  /** The policy in force for a session: its latest preset switch (the sandbox service records it), else the config. */
  policyFor(session: Session): ApprovalPolicy {
    return this.modeOwner()?.presetPolicy(session) ?? this.settings.policy
  }

  /** The presets this service knows. */
  presets(): readonly ApprovalPreset[] {
    return presetList()
  }

  /**
   * Switch a session to a preset: records `sandbox/mode` `{ mode, preset,
   * policy, reason }` (fsynced), which the sandbox service reads for the
   * session's mode and this service for its policy.
   */
  async setPreset(session: Session, name: string, reason?: string): Promise<SessionEvent<'sandbox/mode'>> {
    if (!(session instanceof Session)) throw new KernelError('INVALID_CONFIG', 'setPreset needs a session')
    const preset = getPreset(name, 'setPreset name')
    const owner = this.modeOwner()
    // a preset whose sandbox half cannot be recorded is not switched at all
    if (!owner) throw new KernelError('SANDBOX_UNAVAILABLE', `setPreset ${JSON.stringify(name)}: no sandbox service is running to record the session's mode`)
    return owner.setMode(session, preset.sandboxMode, typeof reason === 'string' ? reason : undefined, { name: preset.name, policy: preset.policy })
  }

  private modeOwner(): ModeOwner | undefined {
    return this.root.get('sandbox') as ModeOwner | undefined
  }

  private stateOf(session: Session): SessionState {
    let state = this.sessions.get(session)
    if (!state) {
      // a reopened session keeps the grants its log holds
      state = { grants: GrantStore.fromLog(session.events()), live: new Set() }
      this.sessions.set(session, state)
      session.onClose(() => this.sessions.delete(session))
    }
    return state
  }

  private prepare(input: ApprovalRequest, exec: Execution, session: Session): Prepared {
    const request: Prepared = { id: `approval-${randomUUID()}`, exec, session }
    const problems: string[] = []
    if (typeof exec.callId !== 'string' || typeof exec.name !== 'string') problems.push('callId and name must be strings')
    try {
      request.args = snapshot<JsonObject>(exec.arguments)
      if (!request.args || typeof request.args !== 'object' || Array.isArray(request.args)) {
        problems.push('the arguments must be an object')
        request.args = undefined
      }
    } catch (error) {
      problems.push(describeError(error))
    }
    if (input.reason !== undefined) {
      if (typeof input.reason === 'string') request.reason = input.reason
      else problems.push('the reason must be a string')
    }
    if (input.sandboxMode !== undefined) {
      if (MODES.has(input.sandboxMode)) request.sandboxMode = input.sandboxMode
      else problems.push(`unknown sandbox mode ${JSON.stringify(input.sandboxMode)}`)
    }
    if (problems.length) request.invalid = problems.join('; ')
    return request
  }

  private async decide(request: Prepared, policy: ApprovalPolicy, grant: ApprovalGrant | undefined, grantable: boolean): Promise<Consultation> {
    if (request.invalid) return { outcome: denied(`invalid approval request: ${request.invalid}`), by: 'invalid' }
    if (policy === 'never') return { outcome: denied('approval policy is "never": nothing that needs approval may run'), by: 'policy' }
    if (!request.session.inTurn) return { outcome: unavailable('approval needs an open turn and the session has none'), by: 'no-turn' }
    if (grant) {
      const outcome: ApprovalOutcome = { kind: 'approved', grant: 'session' }
      if (request.sandboxMode) outcome.sandboxMode = request.sandboxMode
      return { outcome, by: 'grant' }
    }
    const signal = request.exec.signal
    return consult({
      root: this.root,
      thisArg: request.exec.scope ?? request.session,
      exec: request.exec,
      session: request.session,
      reason: request.reason,
      sandboxMode: request.sandboxMode,
      grantable,
      timeoutMs: this.settings.timeoutMs,
      callerSignal: signal instanceof AbortSignal ? signal : new AbortController().signal,
      serviceSignal: this.lifetime.signal,
    })
  }

  private newGrant(request: Prepared): ApprovalGrant {
    return {
      id: `grant-${randomUUID()}`,
      name: request.exec.name,
      arguments: request.args!,
      ...(request.sandboxMode ? { sandboxMode: request.sandboxMode } : {}),
      requestId: request.id,
      callId: request.exec.callId,
      createdAt: Date.now(),
    }
  }
}
