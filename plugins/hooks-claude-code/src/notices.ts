/**
 * The events that only inform — Notification, SessionStart, SessionEnd — run
 * in the background: nothing waits for them and nothing they say changes a
 * decision. Each run is audited like the others (a hook that cannot be
 * audited does not run). A session's SessionEnd hooks run once, however it
 * ends (a host's `end()`, its `close()`, the kernel stopping), start once its
 * earlier notices are done, and ending it waits for them all — within a
 * bounded budget, past which they are killed — so every `hook/result`
 * reaches the log before it closes.
 */
import type { Session } from '@dsh/kernel'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { hasWork, runHooks, type DispatchEnv } from './dispatch.js'
import { SESSION_END_BUDGET_MS, SESSION_END_MAX_MS } from './limits.js'
import type { Snapshot } from './store.js'
import { commonInput, SESSION_END_REASONS, type NotificationInput, type SessionEndInput, type SessionStartInput } from './input.js'

export class Notices {
  /** the notices running, per session */
  private running = new WeakMap<Session, Set<Promise<unknown>>>()
  /** cuts every notice of a session when its ending runs out of time */
  private cutters = new WeakMap<Session, AbortController>()
  /** the sessions whose SessionEnd has run (or is running): once each */
  private ended = new WeakSet<Session>()

  constructor(private env: () => Promise<DispatchEnv>, private loaded: () => DispatchEnv | undefined) {}

  private cutter(session: Session): AbortController {
    let cutter = this.cutters.get(session)
    if (!cutter) this.cutters.set(session, (cutter = new AbortController()))
    return cutter
  }

  private track(session: Session, run: (env: DispatchEnv, signal: AbortSignal) => Promise<unknown>): Promise<void> {
    let set = this.running.get(session)
    if (!set) this.running.set(session, (set = new Set()))
    const { signal } = this.cutter(session)
    // a notice never fails its caller: a failed load, a failed run are recorded or dropped, never thrown
    const task: Promise<void> = this.env().then((env) => run(env, signal)).then(() => {}, () => {})
    set.add(task)
    void task.finally(() => set.delete(task))
    return task
  }

  /** Notification `permission_prompt`: an approval is about to wait for a person. */
  permissionPrompt(request: ApprovalRequestEvent): void {
    const { exec } = request
    void this.track(request.session, (env, signal) => {
      const toolName = env.toolName(exec.name)
      const input: NotificationInput = {
        ...commonInput('Notification', request.session, env.workspace),
        message: `dsh needs your permission to use ${toolName}`,
        title: 'Permission needed',
        notification_type: 'permission_prompt',
      }
      return runHooks(env, 'Notification', { session: request.session, signal, match: 'permission_prompt', call: { callId: exec.callId, tool: exec.name, toolName }, input })
    })
  }

  sessionStart(session: Session, source: SessionStartInput['source']): void {
    void this.track(session, (env, signal) => runHooks(env, 'SessionStart', {
      session,
      signal,
      match: source,
      input: { ...commonInput('SessionStart', session, env.workspace), source } satisfies SessionStartInput,
    }))
  }

  /**
   * The session is ending: its SessionEnd hooks run once, after its earlier
   * notices, all within the SessionEnd budget (sessionEndBudgetMs): past it
   * every hook of the session still running is killed with its process
   * group. Resolves once they are all done and recorded; undefined when there
   * is nothing to run or wait for (the session can close at once).
   */
  sessionEnd(session: Session, hostReason: string): Promise<void> | undefined {
    if (this.ended.has(session)) return undefined
    this.ended.add(session)
    const reason = SESSION_END_REASONS.has(hostReason) ? hostReason : 'other'
    const env = this.loaded()
    if (env && !this.running.get(session)?.size && !hasWork(env.refresh(), 'SessionEnd', reason)) return undefined
    return this.endWithin(session, reason)
  }

  private async endWithin(session: Session, reason: string): Promise<void> {
    let budget = SESSION_END_BUDGET_MS
    try {
      budget = sessionEndBudgetMs((await this.env()).refresh(), reason)
    } catch {}
    const cutter = this.cutter(session)
    const timer = setTimeout(() => cutter.abort(new Error(`the session's ending ran past its ${budget / 1000} s budget`)), budget)
    try {
      await this.settle(session)
      await this.track(session, (env, signal) => runHooks(env, 'SessionEnd', {
        session,
        signal,
        match: reason,
        input: { ...commonInput('SessionEnd', session, env.workspace), reason } satisfies SessionEndInput,
      }))
      await this.settle(session)
    } finally {
      clearTimeout(timer)
    }
  }

  private async settle(session: Session): Promise<void> {
    const set = this.running.get(session)
    while (set?.size) await Promise.all([...set])
  }
}

/**
 * How long a session's ending may take (Claude Code's rule): SessionEnd
 * hooks share SESSION_END_BUDGET_MS, raised to the longest `timeout` a
 * matching SessionEnd hook sets itself, up to SESSION_END_MAX_MS — a hook
 * left at the 600 s default holds a shutdown 1.5 s, never 10 minutes.
 */
export function sessionEndBudgetMs(snapshot: Snapshot, reason: string): number {
  let longest = 0
  for (const hook of snapshot.hooks) if (hook.event === 'SessionEnd' && hook.timeout !== undefined && hook.matcher(reason)) longest = Math.max(longest, hook.timeout * 1000)
  return Math.min(SESSION_END_MAX_MS, Math.max(SESSION_END_BUDGET_MS, Math.round(longest)))
}
