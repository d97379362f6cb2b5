/**
 * One worker thread of the pool and its lifecycle: started warm, one run at a
 * time, replaced when it dies or is terminated for not stopping. A thread that
 * cannot even start three times in a row is given up (`failed`), so a broken
 * installation fails runs instead of spawning threads forever.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import { activityBytes, activitySlots, channelBytes, ctlBytes, ctlSlots, type HostMessage, type ResultMessage, type WorkerData, type WorkerMessage } from './protocol.js'
import type { HostRun, RunHost } from './run.js'
import { Channel, channelEnds } from './worker/channel.js'
import { decodeCall, encodeResult } from './worker/records.js'

/** the worker's entry, found when the first worker starts (not as this module loads: the CLI's bundle finds a package's files on first use) */
const workerUrl = () => new URL('./worker/main.js', import.meta.url)
const maxStartFailures = 3
/**
 * The wasm frames of QuickJS run on the thread's native stack; this size
 * leaves QuickJS's own stack check (worker/isolate.js) room to fire first.
 */
const stackSizeMb = 8
/** the host polls the worker's ring this long after each sub-call: 2 ms closed the wake-up tail 0.5 ms left (why, measured: decisions/2026-11-30-code-runtime.md) */
const pollMs = 2
/** how long one turn of that polling waits for the worker before it lets the event loop go on */
const spinInTurnMs = 0.05
/** a rested run polls only from this answer on, `probeMs` at a time until it catches a sub-call: polling right after a wake-up keeps the woken thread off its CPU (decisions/2026-11-30-code-runtime.md) */
const pollAfterAnswers = 2
const probeMs = 0.2

export type WorkerState = 'starting' | 'idle' | 'busy' | 'failed' | 'closed'

export interface PoolEvents {
  /** the worker can take a run */
  idle(worker: PoolWorker): void
  /** the worker gave up starting */
  failed(worker: PoolWorker): void
}

export interface PoolWorkerOptions {
  /** the worker's entry module (tests give a broken one) */
  entry?: URL
  /** what the whole pool shares of its runs (`activitySlots`): idle workers warm up only while no run is in progress */
  activity?: Int32Array
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
  /** sub-calls from the worker */
  private up!: Channel
  /** answers to the worker */
  private down!: Channel
  private run: HostRun | undefined
  private startFailures = 0
  private pollingNow = false
  private lastTraffic = 0
  /** polling starts once the current run has had this many sub-calls answered */
  private pollAfter = 0
  private answered = 0
  /** polling caught a sub-call of the current run: the two threads run on separate CPUs */
  private caught = false
  private readonly entry: URL
  private readonly activity: Int32Array

  constructor(
    private readonly events: PoolEvents,
    options: PoolWorkerOptions = {},
  ) {
    this.entry = options.entry ?? workerUrl()
    this.activity = options.activity ?? new Int32Array(new SharedArrayBuffer(activityBytes))
    this.warm = new Promise(resolve => (this.markWarm = resolve))
    this.spawn()
  }

  /** Whether the host polls this worker's sub-calls now (else they come with wake messages). */
  get polling(): boolean {
    return this.pollingNow
  }

  /** Start `run` here; `rested`: the pool was quiet long enough for the kernel to pack its threads. */
  start(run: HostRun, rested = false): void {
    this.state = 'busy'
    this.answered = 0
    this.pollAfter = rested ? pollAfterAnswers : 0
    this.caught = !rested
    this.setRun(run)
    this.post(run.attach(this))
    if (!rested) this.pollSoon()
  }

  /** The run in progress, counted in the pool's activity words while there is one. */
  private setRun(run: HostRun | undefined): void {
    if (run && !this.run) {
      Atomics.add(this.activity, activitySlots.started, 1)
      Atomics.add(this.activity, activitySlots.running, 1)
    } else if (!run && this.run) {
      Atomics.sub(this.activity, activitySlots.running, 1)
      // idle workers wait on the word to resume their warm-up
      Atomics.notify(this.activity, activitySlots.running)
    }
    this.run = run
  }

  send(message: ResultMessage): void {
    if (this.run?.id !== message.run) return
    this.down.write(encodeResult(message))
    // a worker that had gone to sleep wakes up on this thread's CPU: poll for `probeMs` only, then
    // let it run (it had slept because the answer took longer than its spin: a slow tool, a stall)
    if (Atomics.load(this.ctl, ctlSlots.workerAsleep) === 1) this.caught = false
    this.wake()
    if (++this.answered >= this.pollAfter) this.pollSoon()
  }

  /**
   * Poll the `up` channel for the run's next sub-call for `pollMs` from now.
   * Not for a background run: polling would keep the process alive, so its
   * sub-calls come with wake messages instead.
   */
  private pollSoon(): void {
    if (this.run?.background) return
    this.lastTraffic = performance.now()
    if (this.pollingNow) return
    this.pollingNow = true
    Atomics.store(this.ctl, ctlSlots.hostPolling, 1)
    setImmediate(this.poll)
  }

  private poll = (): void => {
    // a worker usually writes its next sub-call within tens of µs: wait for it here a moment rather
    // than through a turn of the event loop each time (a turn allocates an immediate and makes a
    // system call; about a quarter of the host's allocations per sub-call were these)
    if (this.state === 'busy' && this.run && !this.up.hasRecord()) {
      // the clock is read once per 64 looks: each reading allocates a number
      const until = performance.now() + spinInTurnMs
      for (let look = 1; !this.up.hasRecord() && (look % 64 !== 0 || performance.now() < until); look++);
    }
    if (this.drain()) this.caught = true
    if (this.state === 'busy' && this.run && performance.now() - this.lastTraffic <= (this.caught ? pollMs : probeMs)) {
      setImmediate(this.poll)
      return
    }
    this.pollingNow = false
    Atomics.store(this.ctl, ctlSlots.hostPolling, 0)
    // a sub-call written before that store is seen here; one written after it comes with a wake message
    this.drain()
  }

  /** Hand the run the sub-calls its worker wrote; drop any of an earlier run. Whether there were any. */
  private drain(): boolean {
    let any = false
    try {
      for (let text = this.up.read(); text !== undefined; text = this.up.read()) {
        any = true
        const record = decodeCall(text)
        const run = this.run
        if (run?.id !== record.run) continue
        if (this.answered >= this.pollAfter) this.pollSoon()
        run.onCall({ t: 'call', run: record.run, call: record.call, name: run.tools[record.tool] ?? '?', json: record.json })
      }
    } catch (error) {
      // a record out of order or malformed: nothing more from this worker is trusted
      const run = this.run
      this.kill()
      run?.onLost(error)
    }
    return any
  }

  cancel(run: number): void {
    Atomics.store(this.ctl, ctlSlots.cancel, run)
    this.wake()
  }

  kill(): void {
    this.setRun(undefined)
    this.closePorts()
    void this.thread.terminate()
    if (this.state !== 'closed') this.spawn()
  }

  async close(): Promise<void> {
    this.state = 'closed'
    this.markWarm()
    this.run?.abandon('ABORTED', 'the code runtime was disposed')
    this.setRun(undefined)
    this.closePorts()
    await this.thread.terminate()
  }

  private closePorts(): void {
    this.port.close()
    this.up.close()
    this.down.close()
  }

  private spawn(): void {
    this.state = 'starting'
    const ctl = new SharedArrayBuffer(ctlBytes)
    const { port1, port2 } = new MessageChannel()
    const [upReader, upWriter] = channelEnds(channelBytes, MessageChannel)
    const [downWriter, downReader] = channelEnds(channelBytes, MessageChannel)
    const workerData: WorkerData = { ctl, activity: this.activity.buffer as SharedArrayBuffer, port: port2, up: upWriter, down: downReader }
    // execArgv: [] — the worker needs no flag of the host's, and some (--input-type, loaders) break it
    const thread = new Worker(this.entry, {
      workerData,
      transferList: [port2, upWriter.port, downReader.port],
      execArgv: [],
      resourceLimits: { stackSizeMb },
    })
    this.thread = thread
    this.port = port1
    this.ctl = new Int32Array(ctl)
    this.up = new Channel(upReader)
    this.down = new Channel(downWriter)
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
      case 'wake':
        this.drain()
        return
      case 'done': {
        const run = this.run
        this.setRun(undefined)
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
    this.setRun(undefined)
    if (this.state === 'starting' && ++this.startFailures >= maxStartFailures) {
      this.state = 'failed'
      this.hold()
      this.failure ||= error.message
      this.markWarm()
      this.events.failed(this)
      return
    }
    run?.onLost(error)
    this.closePorts()
    this.spawn()
  }
}
