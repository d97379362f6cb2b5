// @ts-check
/**
 * Entry of a runtime worker thread. Loads QuickJS, exercises the run path once,
 * says `ready`, then runs one program per `run` message (and warms the JIT up
 * further while idle). Plain JavaScript, type-checked through JSDoc, so that the
 * thread can load it unbuilt from `src` as well as from `lib`.
 */
import { workerData } from 'node:worker_threads'
import { Engine } from './engine.js'
import { Channel } from './channel.js'
import { HostLink } from './link.js'
import { Session } from './session.js'
import { warmUp } from './warm-up.js'

/**
 * @typedef {import('../protocol.js').WorkerData} WorkerData
 * @typedef {import('../protocol.js').WorkerMessage} WorkerMessage
 * @typedef {import('../protocol.js').HostMessage} HostMessage
 * @typedef {import('../protocol.js').RunMessage} RunMessage
 */

const { ctl, activity, port, up, down } = /** @type {WorkerData} */ (workerData)
const link = new HostLink(port, new Int32Array(ctl), new Channel(up), new Channel(down))
/** the pool's runs (slots: activitySlots in ../protocol.ts): idle work waits for a quiet moment */
const runsInPool = new Int32Array(activity)
const RUNNING = 0
const STARTED = 1
const engine = new Engine()
/** @type {Promise<void> | undefined} a QuickJS instance being (re)loaded */
let loading

/** @param {WorkerMessage} message */
const post = message => port.postMessage(message)

/** @param {unknown} error */
const fatal = error => post({ t: 'fatal', message: error instanceof Error ? error.message : String(error) })

port.on('message', (/** @type {HostMessage} */ message) => {
  if (message.t !== 'run') return
  // an instance that failed between runs (making the next isolate, say) is replaced first
  if (!loading && engine.broken) reload(() => {})
  if (loading) loading.then(() => onRun(message), fatal)
  else onRun(message)
})

/** @param {RunMessage} request */
function onRun(request) {
  const session = new Session(engine, request, link)
  const { outcome, logs } = session.run()
  const recycling = engine.needsRecycle()
  post({ t: 'done', run: request.run, outcome, logs, recycling })
  session.release()
  if (recycling) {
    reload(() => post({ t: 'ready' }))
  } else if (engine.broken) {
    // freeing the isolate failed: the host already counts this worker idle, so a run may wait on the reload
    reload(() => {})
  } else {
    engine.prepare()
    whenQuiet()
  }
}

/** @param {() => void} then */
function reload(then) {
  loading = engine.load().then(() => {
    loading = undefined
    engine.prepare()
    then()
    whenQuiet()
  })
  loading.catch(fatal)
}

/**
 * Idle warm-up steps left (see warm-up.js), each 10 transforms and a session of
 * 26 sub-calls: about 3 ms of CPU once warm, 15–30 ms at first. Both sucrase and
 * the sub-call path stop getting faster after about 60.
 */
let warmUpSteps = 80
/** a turn of `whenQuiet` is pending */
let quietPending = false
/**
 * How long no run may start before a warm-up step: runs submitted one after
 * another (a program per tool call of a busy agent, a benchmark) leave gaps of
 * a fraction of a millisecond between them.
 */
const quietMs = 3

/**
 * The warm-up steps, one at a time, each once no run has been in progress
 * anywhere in the pool for `quietMs`. A run in progress keeps two threads busy
 * (the host's and its worker's, each spinning for the other's answer), which
 * is both cores here: anything else that runs then takes one of them from the
 * run.
 */
function whenQuiet() {
  if (quietPending || loading || engine.broken || warmUpSteps <= 0) return
  quietPending = true
  const again = () => {
    quietPending = false
    whenQuiet()
  }
  const running = Atomics.load(runsInPool, RUNNING)
  if (running > 0) {
    // no polling: the host notifies the word whenever a run ends
    const wait = Atomics.waitAsync(runsInPool, RUNNING, running)
    if (wait.async) void wait.value.then(again)
    else setImmediate(again)
    return
  }
  const started = Atomics.load(runsInPool, STARTED)
  setTimeout(() => {
    quietPending = false
    if (loading || engine.broken) return
    if (Atomics.load(runsInPool, RUNNING) === 0 && Atomics.load(runsInPool, STARTED) === started) {
      warmUpSteps--
      warmUp(engine, { transforms: 10, session: true })
    }
    whenQuiet()
  }, quietMs)
}

loading = engine.load().then(() => {
  warmUp(engine, { transforms: 3, session: true })
  return engine.needsRecycle() ? engine.load() : undefined
})
loading.then(() => {
  loading = undefined
  engine.prepare()
  post({ t: 'ready' })
  whenQuiet()
}, fatal)
