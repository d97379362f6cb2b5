/**
 * `sandbox/network`: one event per connection a confined command asked the
 * proxy for, allowed or not, appended to the call's session before the
 * connection goes through.
 */
import type { Session } from '@dsh/kernel'
import type { ConnectionRecorder, ProxyConnection } from './connection.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    /**
     * a confined command (or, refused for its credential, anything on the host) asked the proxy for
     * `host:port` (empty and 0 when refused before saying); `allowed` says whether it went through,
     * `address` where to, `reason` why not
     */
    'sandbox/network': { callId: string; host: string; port: number; allowed: boolean; address?: string; reason?: string }
  }
}

/** The call a command is confined for: where its connections are recorded. */
export interface ConfineCall {
  session: Session
  callId: string
  /** sees each connection once it is recorded (bash: to say why a refused one failed) */
  observe?: (connection: ProxyConnection) => void
  /** sees each exec the call's exec rules refused (bash: to say it in the result) */
  observeExec?: (refused: { argv: readonly string[]; program: string; reason: string; rule?: string }) => void
}

/**
 * Records each connection synchronously (the line is in the file when it
 * returns); a write that fails throws, and the proxy refuses the connection.
 */
export function sessionRecorder(call: ConfineCall): ConnectionRecorder {
  return (connection) => {
    const { host, port, allowed, address, reason } = connection
    call.session.write('sandbox/network', {
      callId: call.callId, host, port, allowed, ...(address !== undefined ? { address } : {}), ...(reason !== undefined ? { reason } : {}),
    })
    // Why swallowed: the line is written, which is what lets the connection through; an observer only explains
    try {
      call.observe?.(connection)
    } catch {}
  }
}
