/**
 * `sandbox/network`: one event per connection a confined command asked the
 * proxy for, allowed or not, appended to the call's session before the
 * connection goes through.
 */
import type { Session } from '@dsh/kernel'
import type { ConnectionRecorder } from './proxy.js'

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
}

/**
 * Records each connection synchronously (the line is in the file when it
 * returns); a write that fails throws, and the proxy refuses the connection.
 */
export function sessionRecorder(call: ConfineCall): ConnectionRecorder {
  return ({ host, port, allowed, address, reason }) => call.session.write('sandbox/network', {
    callId: call.callId, host, port, allowed, ...(address !== undefined ? { address } : {}), ...(reason !== undefined ? { reason } : {}),
  })
}
