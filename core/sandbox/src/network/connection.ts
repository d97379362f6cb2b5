/** What the sandbox's network side records of each connection a command asks for. */

/** One connection the command asked for, as `sandbox/network` records it. */
export interface ProxyConnection {
  host: string
  port: number
  allowed: boolean
  /** the address checked and connected to, when allowed */
  address?: string
  /** why it was refused */
  reason?: string
  /** what in the config would let it through (for the caller's message; the session line has the reason alone) */
  remedy?: string
}

/** Records an attempt; throwing refuses the connection (a record that cannot be written is no allow). */
export type ConnectionRecorder = (connection: ProxyConnection) => void
