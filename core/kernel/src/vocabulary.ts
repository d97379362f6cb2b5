/**
 * Words every package uses, defined once. The kernel knows no service: these
 * are names only — the sandbox service gives `SandboxMode` its meaning.
 */

/** A value, or a promise of one. */
export type Awaitable<T> = T | Promise<T>

/** How much a confined command may touch (DESIGN §8), least first. */
export const SANDBOX_MODES = Object.freeze(['read-only', 'workspace-write', 'danger-full-access'] as const)

export type SandboxMode = typeof SANDBOX_MODES[number]
