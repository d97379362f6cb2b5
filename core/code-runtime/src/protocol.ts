/** What passes between the host thread and a runtime worker; the worker's JSDoc copy of the slot numbers must stay in step (how the threads wake each other: docs/architecture.md, Code mode). */
import type { MessagePort } from 'node:worker_threads'
import type { CodeLimits } from './limits.js'
import type { ChannelEnd } from './worker/channel.js'

/** Int32 slots of the control `SharedArrayBuffer`. */
export const ctlSlots = { seq: 0, cancel: 1, hostPolling: 2, workerAsleep: 3 } as const
export const ctlBytes = 4 * Int32Array.BYTES_PER_ELEMENT
/**
 * Int32 slots of the pool's `activity` buffer: the runs in progress (notified
 * whenever one ends), and the runs ever started (modulo 2^32). Idle workers
 * wait on them for a quiet moment (worker/main.js).
 */
export const activitySlots = { running: 0, started: 1 } as const
export const activityBytes = 2 * Int32Array.BYTES_PER_ELEMENT
/** bytes of each channel's ring: a record that does not fit goes through the channel's port */
export const channelBytes = 64 * 1024

export interface WorkerData {
  ctl: SharedArrayBuffer
  /** the worker writes sub-calls here */
  up: ChannelEnd
  /** the worker reads answers here */
  down: ChannelEnd
  /** Int32s shared by the whole pool (`activitySlots`) */
  activity: SharedArrayBuffer
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

/** An answer to a sub-call (a record on the `down` channel, see worker/records.js). */
export type ResultMessage =
  | { t: 'result'; run: number; call: number; ok: true; json: string }
  | { t: 'result'; run: number; call: number; ok: false; code: string; message: string; limit?: true }

export type HostMessage = RunMessage

// worker → host

/** The worker's verdict; `INTERRUPTED` is turned into `TIMEOUT` or `ABORTED` by the host, which knows why. */
export type WorkerOutcome =
  | { ok: true; json: string }
  | { ok: false; code: 'SYNTAX' | 'THREW' | 'MEMORY' | 'LIMIT' | 'INTERRUPTED'; message: string; line?: number }

export interface ReadyMessage {
  t: 'ready'
}

/** A sub-call, as the host hands it on (it comes as a record on the `up` channel, see worker/records.js). */
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

/** a sub-call is on the `up` channel while the host was not polling it */
export interface WakeMessage {
  t: 'wake'
}

export interface FatalMessage {
  t: 'fatal'
  message: string
}

export type WorkerMessage = ReadyMessage | WakeMessage | DoneMessage | FatalMessage
