/**
 * Session grants. A grant is bound to the exact tool name, the canonical JSON
 * of the arguments (key order does not matter, every value does) and the
 * explicit sandbox mode asked for, if any: it approves that call again and
 * nothing wider.
 */
import { canonicalJson, deepFreeze, type JsonObject, type SessionEvent } from '@dsh/kernel'
import type { SandboxMode } from '@dsh/kernel'

export interface ApprovalGrant {
  readonly id: string
  readonly name: string
  readonly arguments: Readonly<JsonObject>
  readonly sandboxMode?: SandboxMode
  /** the request whose answer created it */
  readonly requestId: string
  readonly callId: string
  /** ms since the epoch */
  readonly createdAt: number
}

/** The identity of a call for grant matching. */
export function grantKey(name: string, args: JsonObject, sandboxMode: SandboxMode | undefined): string {
  return canonicalJson([name, args, sandboxMode ?? null])
}

export class GrantStore {
  private byId = new Map<string, ApprovalGrant>()
  private byKey = new Map<string, string>()

  match(key: string): ApprovalGrant | undefined {
    const id = this.byKey.get(key)
    return id === undefined ? undefined : this.byId.get(id)
  }

  add(key: string, grant: ApprovalGrant): void {
    const previous = this.byKey.get(key)
    if (previous !== undefined) this.byId.delete(previous)
    this.byId.set(grant.id, deepFreeze(grant))
    this.byKey.set(key, grant.id)
  }

  remove(id: string): ApprovalGrant | undefined {
    const grant = this.byId.get(id)
    if (!grant) return
    this.byId.delete(id)
    for (const [key, value] of this.byKey) if (value === id) this.byKey.delete(key)
    return grant
  }

  list(): ApprovalGrant[] {
    return [...this.byId.values()]
  }

  /**
   * The grants a session's log holds: every `approval/granted` not followed
   * by its `approval/revoked`, in order (a reopened session — `dsh mcp
   * --session` — keeps what was granted in it, and nothing that was revoked).
   * A line that lacks what a grant needs is no grant.
   */
  static fromLog(events: readonly SessionEvent[]): GrantStore {
    const store = new GrantStore()
    for (const event of events) {
      const data = event.data as Record<string, unknown> | null
      if (!data || typeof data !== 'object') continue
      if (event.type === 'approval/revoked' && typeof data.grantId === 'string') store.remove(data.grantId)
      if (event.type !== 'approval/granted') continue
      const { grantId, name, arguments: args, requestId, callId, sandboxMode } = data
      if (typeof grantId !== 'string' || typeof name !== 'string' || !args || typeof args !== 'object' || Array.isArray(args)) continue
      const mode = typeof sandboxMode === 'string' ? (sandboxMode as SandboxMode) : undefined
      store.add(grantKey(name, args as JsonObject, mode), {
        id: grantId,
        name,
        arguments: structuredClone(args as JsonObject),
        ...(mode ? { sandboxMode: mode } : {}),
        requestId: String(requestId ?? ''),
        callId: String(callId ?? ''),
        createdAt: event.time,
      })
    }
    return store
  }
}
