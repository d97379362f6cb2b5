/**
 * The shapes a host exchanges with the code runtime. A program's value crosses
 * the bridge as JSON text, so every value here is plain JSON.
 */
import type { CodeLimits } from './limits.js'

export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue }

/**
 * What the host bridge answers for one `tools.<name>(args)` call. `settled`,
 * if given, is called once the answer is on its way to the program (or
 * dropped, the run being over): work the answer does not need waits for it
 * there, off the program's path. What it throws is ignored.
 */
export type SubCallOutcome = ({ ok: true; value: JsonValue } | { ok: false; code: string; message: string }) & { settled?: () => void }

/**
 * The host side of a sub-call. `index` counts 1, 2, 3… within a run; `signal`
 * aborts when the run ends (finished, timed out, aborted), so a sub-call still
 * in flight can stop its work.
 */
export type SubCallBridge = (
  name: string,
  args: JsonValue,
  index: number,
  signal: AbortSignal,
) => Promise<SubCallOutcome>

export interface RunRequest {
  /** TypeScript, run as the body of an async function (top-level `await` and `return`) */
  code: string
  /** the names the program may call as `tools.<name>(args)` */
  tools: readonly string[]
  call: SubCallBridge
  /** the caller's cancellation: the run ends `ABORTED` */
  signal?: AbortSignal
  /** over the runtime's limits, for this run only */
  limits?: Partial<CodeLimits>
}

export type RunFailureCode =
  /** the program does not parse (TypeScript or JavaScript); `line` is in the program */
  | 'SYNTAX'
  /** an uncaught throw or rejection, a non-JSON return value, a program that can never finish */
  | 'THREW'
  /** the wall-clock deadline (`timeoutMs`) passed */
  | 'TIMEOUT'
  /** the caller's signal aborted, or the runtime was disposed */
  | 'ABORTED'
  /** the isolate reached its memory cap */
  | 'MEMORY'
  /** a count or size limit: sub-calls, value bytes, program bytes */
  | 'LIMIT'

export type RunOutcome =
  | { ok: true; value: JsonValue; logs: string }
  | { ok: false; code: RunFailureCode; message: string; line?: number; logs: string }

export interface CodeRuntimeOptions {
  /** worker threads started up front (default 2) */
  workers?: number
  /** defaults for every run (over `defaultCodeLimits`) */
  limits?: Partial<CodeLimits>
  /**
   * how long a cancelled run may take to stop before its worker thread is
   * terminated and replaced (default 1000 ms). The caller has its outcome
   * within 50 ms of the cancellation either way.
   */
  terminateAfterMs?: number
  /**
   * programs of sub-calls the runtime runs against itself, answering them
   * itself, whenever its whole pool is idle, until this many have run
   * (default 0); a real run arriving meanwhile takes another idle worker, or
   * waits for one warm-up run (50 sub-calls) at most. Why: V8 optimizes the
   * host's side of a sub-call only as it runs (decisions/2026-11-30-code-runtime.md).
   */
  warmUpRuns?: number
}
