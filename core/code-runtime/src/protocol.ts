/**
 * Messages between the host thread and a runtime worker, and the layout of the
 * shared control words. The worker side (`worker/*.js`) reads these types
 * through JSDoc; keep its copy of the slot numbers in step.
 *
 * During a run the worker never returns to its event loop: it blocks in
 * `Atomics.wait` on the `seq` word and takes messages with
 * `receiveMessageOnPort`. So after every message it posts, the host bumps `seq`
 * and notifies — and to cancel, it writes the run id into `cancel` first.
 */
import type { MessagePort } from 'node:worker_threads'
import type { CodeLimits } from './limits.js'

/** Int32 slots of the control `SharedArrayBuffer`. */
export const ctlSlots = { seq: 0, cancel: 1 } as const
export const ctlBytes = 2 * Int32Array.BYTES_PER_ELEMENT

export interface WorkerData {
  ctl: SharedArrayBuffer
  port: MessagePort
}

// host → worker

export interface RunMessage {
  t: 'run'
  run: number
  code: string
  tools: readonly string[]
  limits: CodeLimits
  /** absolute `Date.now()` time at which the program is interrupted */
  deadline: number
}

export type ResultMessage =
  | { t: 'result'; run: number; call: number; ok: true; json: string }
  | { t: 'result'; run: number; call: number; ok: false; code: string; message: string; limit?: true }

export type HostMessage = RunMessage | ResultMessage

// worker → host

/** The worker's verdict; `INTERRUPTED` is turned into `TIMEOUT` or `ABORTED` by the host, which knows why. */
export type WorkerOutcome =
  | { ok: true; json: string }
  | { ok: false; code: 'SYNTAX' | 'THREW' | 'MEMORY' | 'LIMIT' | 'INTERRUPTED'; message: string; line?: number }

export interface ReadyMessage {
  t: 'ready'
}

export interface CallMessage {
  t: 'call'
  run: number
  call: number
  name: string
  json: string
}

export interface DoneMessage {
  t: 'done'
  run: number
  outcome: WorkerOutcome
  logs: string
  /** the worker is replacing its QuickJS instance and sends `ready` when done */
  recycling: boolean
}

export interface FatalMessage {
  t: 'fatal'
  message: string
}

export type WorkerMessage = ReadyMessage | CallMessage | DoneMessage | FatalMessage
