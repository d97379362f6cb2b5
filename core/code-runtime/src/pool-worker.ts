/**
 * One worker thread of the pool and its lifecycle: started warm, one run at a
 * time, replaced when it dies or is terminated for not stopping. A thread that
 * cannot even start three times in a row is given up (`failed`), so a broken
 * installation fails runs instead of spawning threads forever.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { ctlBytes, ctlSlots, type HostMessage, type ResultMessage, type WorkerData, type WorkerMessage } from './protocol.js'
import type { HostRun, RunHost } from './run.js'

const workerUrl = new URL('./worker/main.js', import.meta.url)
const maxStartFailures = 3
/**
 * The wasm frames of QuickJS run on the thread's native stack; this size
 * leaves QuickJS's own stack check (worker/isolate.js) room to fire first.
 */
const stackSizeMb = 8
/**
 * After a sub-call arrives or is answered, the host polls the port on every
 * turn of its event loop for this long (and the worker spins as long for the
 * answer): a program's next sub-call is picked up within a turn instead of
 * through the port's wake-up, and the answer reaches a thread that is still
 * awake. Measured here: with 0.5 ms windows one sub-call in ten waited half a
 * millisecond more (the window had closed); with 2 ms the tail is gone. The
 * polling stops when the run goes quiet, so an idle run costs nothing.
 */
const pollMs = 2

export type WorkerState = 'starting' | 'idle' | 'busy' | 'failed' | 'closed'

export interface PoolEvents {
  /** the worker can take a run */
  idle(worker: PoolWorker): void
  /** the worker gave up starting */
  failed(worker: PoolWorker): void
}

export class PoolWorker implements RunHost {
  state: WorkerState = 'starting'
  /** when the worker last became idle: the pool hands runs to the longest idle, whose next isolate is ready */
  idleSince = 0
  /** why the worker failed to start, once `state` is `failed` */
  failure = ''
  /** settles once the worker is first ready, has failed, or was closed */
  readonly warm: Promise<void>
  private markWarm!: () => void
  private thread!: Worker
  private port!: MessagePort
  private ctl!: Int32Array
  private run: HostRun | undefined
  private startFailures = 0
  private polling = false
  private lastTraffic = 0

  constructor(
    private readonly events: PoolEvents,
    /** the worker's entry module (tests give a broken one) */
    private readonly entry: URL = workerUrl,
  ) {
    this.warm = new Promise(resolve => (this.markWarm = resolve))
    this.spawn()
  }

  start(run: HostRun): void {
    this.state = 'busy'
    this.run = run
    this.post(run.attach(this))
  }

  send(message: ResultMessage): void {
    if (this.run?.id !== message.run) return
    this.post(message)
    this.pollSoon()
  }

  /** Poll the port for the run's next message for `pollMs` from now. */
  private pollSoon(): void {
    this.lastTraffic = performance.now()
    if (this.polling) return
    this.polling = true
    setImmediate(this.poll)
  }

  private poll = (): void => {
    if (this.state !== 'busy' || !this.run) {
      this.polling = false
      return
    }
    let message: { message: WorkerMessage } | undefined
    while (this.state === 'busy' && (message = receiveMessageOnPort(this.port) as typeof message)) this.onMessage(message.message)
    if (this.state !== 'busy' || performance.now() - this.lastTraffic > pollMs) {
      this.polling = false
      return
    }
    setImmediate(this.poll)
  }

  cancel(run: number): void {
    Atomics.store(this.ctl, ctlSlots.cancel, run)
    this.wake()
  }

  kill(): void {
    this.run = undefined
    this.port.close()
    void this.thread.terminate()
    if (this.state !== 'closed') this.spawn()
  }

  async close(): Promise<void> {
    this.state = 'closed'
    this.markWarm()
    this.run?.abandon('ABORTED', 'the code runtime was disposed')
    this.run = undefined
    this.port.close()
    await this.thread.terminate()
  }

  private spawn(): void {
    this.state = 'starting'
    const ctl = new SharedArrayBuffer(ctlBytes)
    const { port1, port2 } = new MessageChannel()
    const workerData: WorkerData = { ctl, port: port2 }
    // execArgv: [] — the worker needs no flag of the host's, and some (--input-type, loaders) break it
    const thread = new Worker(this.entry, { workerData, transferList: [port2], execArgv: [], resourceLimits: { stackSizeMb } })
    this.thread = thread
    this.port = port1
    this.ctl = new Int32Array(ctl)
    port1.on('message', (message: WorkerMessage) => this.onMessage(message))
    // the thread alone decides whether the host process stays alive (see `hold`); after
    // `on('message')`, which refs the port again
    port1.unref()
    thread.on('error', error => this.onExit(thread, error))
    thread.on('exit', code => this.onExit(thread, new Error(`the worker exited with code ${code}`)))
  }

  /**
   * A starting worker keeps the host process alive (so `await ready()` holds);
   * an idle one does not, and a busy one needs not: its run holds a timer.
   */
  private hold(): void {
    if (this.state === 'starting') this.thread.ref()
    else this.thread.unref()
  }

  private post(message: HostMessage): void {
    this.port.postMessage(message)
    this.wake()
  }

  /** A worker in a run blocks in Atomics.wait on `seq`: bump it so it looks at its port. */
  private wake(): void {
    Atomics.add(this.ctl, ctlSlots.seq, 1)
    Atomics.notify(this.ctl, ctlSlots.seq)
  }

  private onMessage(message: WorkerMessage): void {
    switch (message.t) {
      case 'ready':
        this.startFailures = 0
        this.state = 'idle'
        this.idleSince = performance.now()
        this.hold()
        this.markWarm()
        this.events.idle(this)
        return
      case 'call':
        if (this.run?.id === message.run) {
          this.pollSoon()
          this.run.onCall(message)
        }
        return
      case 'done': {
        const run = this.run
        this.run = undefined
        this.state = message.recycling ? 'starting' : 'idle'
        this.idleSince = performance.now()
        this.hold()
        if (run?.id === message.run) run.onDone(message)
        if (this.state === 'idle') this.events.idle(this)
        return
      }
      case 'fatal':
        this.failure = message.message
        void this.thread.terminate()
        return
    }
  }

  private onExit(thread: Worker, error: Error): void {
    // a killed or replaced thread reports its end too: only the current one counts
    if (thread !== this.thread || this.state === 'closed' || this.state === 'failed') return
    const run = this.run
    this.run = undefined
    if (this.state === 'starting' && ++this.startFailures >= maxStartFailures) {
      this.state = 'failed'
      this.hold()
      this.failure ||= error.message
      this.markWarm()
      this.events.failed(this)
      return
    }
    run?.onLost(error)
    this.spawn()
  }
}
