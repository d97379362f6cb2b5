/**
 * The events that only inform — Notification, SessionStart, SessionEnd — run
 * in the background: nothing waits for them and nothing they say changes a
 * decision. Each run is audited like the others (a hook that cannot be
 * audited does not run). A session's SessionEnd hooks start once its earlier
 * notices are done, and ending it waits for them all, so every `hook/result`
 * reaches the log before it closes.
 */
import type { Session } from '@dsh/kernel'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { runHooks, type DispatchEnv } from './dispatch.js'
import { commonInput, SESSION_END_REASONS, type NotificationInput, type SessionEndInput, type SessionStartInput } from './input.js'

export class Notices {
  /** the notices running, per session */
  private running = new WeakMap<Session, Set<Promise<unknown>>>()

  constructor(private env: () => Promise<DispatchEnv>) {}

  private track(session: Session, run: (env: DispatchEnv) => Promise<unknown>): Promise<void> {
    let set = this.running.get(session)
    if (!set) this.running.set(session, (set = new Set()))
    // a notice never fails its caller: a failed load, a failed run are recorded or dropped, never thrown
    const task: Promise<void> = this.env().then(run).then(() => {}, () => {})
    set.add(task)
    void task.finally(() => set.delete(task))
    return task
  }

  /** Notification `permission_prompt`: an approval is about to wait for a person. */
  permissionPrompt(request: ApprovalRequestEvent): void {
    const { exec } = request
    void this.track(request.session, (env) => {
      const toolName = env.toolName(exec.name)
      const input: NotificationInput = {
        ...commonInput('Notification', request.session, env.workspace),
        message: `dsh needs your permission to use ${toolName}`,
        title: 'Permission needed',
        notification_type: 'permission_prompt',
      }
      return runHooks(env, 'Notification', { session: request.session, match: 'permission_prompt', call: { callId: exec.callId, tool: exec.name, toolName }, input })
    })
  }

  sessionStart(session: Session, source: SessionStartInput['source']): void {
    void this.track(session, (env) => runHooks(env, 'SessionStart', {
      session,
      match: source,
      input: { ...commonInput('SessionStart', session, env.workspace), source } satisfies SessionStartInput,
    }))
  }

  /** Resolves once every notice of the session, SessionEnd's included, is done. */
  async sessionEnd(session: Session, hostReason: string): Promise<void> {
    await this.settle(session)
    const reason = SESSION_END_REASONS.has(hostReason) ? hostReason : 'other'
    await this.track(session, (env) => runHooks(env, 'SessionEnd', {
      session,
      match: reason,
      input: { ...commonInput('SessionEnd', session, env.workspace), reason } satisfies SessionEndInput,
    }))
    await this.settle(session)
  }

  private async settle(session: Session): Promise<void> {
    const set = this.running.get(session)
    while (set?.size) await Promise.all([...set])
  }
}
