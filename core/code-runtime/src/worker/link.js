// @ts-check
/**
 * How a run's session talks to its host. `HostLink` is the real one: the
 * sub-call channels, the worker's port and its control words (see
 * ../protocol.ts). `LocalLink` answers every sub-call itself, at once: the idle
 * warm-up drives the whole sub-call path of a session through it (warm-up.js)
 * without the host.
 */
import { decodeResult, encodeCall } from './records.js'

// slots of the control words: ctlSlots in ../protocol.ts
const SEQ = 0
const CANCEL = 1
const HOST_POLLING = 2
const WORKER_ASLEEP = 3
/** how long the thread polls for the host's answer before it sleeps (the host polls as long: ../pool-worker.ts) */
const spinMs = 2

/**
 * @typedef {import('../protocol.js').ResultMessage} ResultMessage
 * @typedef {import('../protocol.js').WorkerMessage} WorkerMessage
 * @typedef {import('./channel.js').Channel} Channel
 *
 * @typedef {object} Link
 * @property {(run: number, call: number, tool: number, json: string) => void} send  hand a sub-call (arguments as JSON) to the host
 * @property {() => ResultMessage | undefined} receive  the next answer the host sent, if any
 * @property {(run: number) => boolean} cancelled  whether the host asked this run to stop
 * @property {(deadline: number) => void} wait  block until the host may have sent something, or the deadline (a `Date.now()` time)
 */

/** @implements {Link} */
export class HostLink {
  /**
   * @param {import('node:worker_threads').MessagePort} port
   * @param {Int32Array} ctl
   * @param {Channel} up
   * @param {Channel} down
   */
  constructor(port, ctl, up, down) {
    this.port = port
    this.ctl = ctl
    this.up = up
    this.down = down
    /** the doorbell as last drained: `wait` sleeps only while it stays there */
    this.seen = 0
    /** the last sub-call went with a wake message: the host was asleep */
    this.wokeHost = false
  }

  /**
   * @param {number} run
   * @param {number} call
   * @param {number} tool
   * @param {string} json
   */
  send(run, call, tool, json) {
    this.up.write(encodeCall(run, call, tool, json))
    // the host polls while a run is busy; when it stopped, it is woken (it clears the flag before
    // looking at the channel a last time, so one of the two sees this record)
    this.wokeHost = Atomics.load(this.ctl, HOST_POLLING) === 0
    if (this.wokeHost) this.port.postMessage(/** @type {WorkerMessage} */ ({ t: 'wake' }))
  }

  receive() {
    // read the doorbell first: an answer written after this read rings it again
    this.seen = Atomics.load(this.ctl, SEQ)
    const text = this.down.read()
    return text === undefined ? undefined : decodeResult(text)
  }

  /** @param {number} run */
  cancelled(run) {
    return Atomics.load(this.ctl, CANCEL) === run
  }

  /** @param {number} deadline */
  wait(deadline) {
    const { ctl, seen } = this
    // spin a moment first: the host answers a quick sub-call within tens of µs, while waking a
    // thread that went to sleep costs hundreds on a virtual machine (the clock is read once per
    // 64 looks: each reading allocates a number). Not after waking the host with a message: a
    // thread that stays busy after posting delays its receiver's wake-up until it stops (by 1–2 ms
    // here), so the answer would come no sooner than the spin ends.
    if (!this.wokeHost) {
      const spinUntil = performance.now() + spinMs
      for (let look = 1; Atomics.load(ctl, SEQ) === seen && (look % 64 !== 0 || performance.now() < spinUntil); look++);
      if (Atomics.load(ctl, SEQ) !== seen) return
    }
    this.wokeHost = false
    Atomics.store(ctl, WORKER_ASLEEP, 1)
    Atomics.wait(ctl, SEQ, seen, Math.max(1, deadline - Date.now()))
    Atomics.store(ctl, WORKER_ASLEEP, 0)
  }
}

/**
 * Answers each sub-call with its arguments, at once, and never cancels: a
 * warm-up session is short, and interrupting QuickJS inside a promise job can
 * leave the instance unusable.
 * @implements {Link}
 */
export class LocalLink {
  constructor() {
    /** @type {ResultMessage[]} */
    this.answers = []
  }

  /**
   * @param {number} run
   * @param {number} call
   * @param {number} _tool
   * @param {string} json
   */
  send(run, call, _tool, json) {
    this.answers.push({ t: 'result', run, call, ok: true, json })
  }

  receive() {
    return this.answers.shift()
  }

  cancelled() {
    return false
  }

  wait() {}
}
