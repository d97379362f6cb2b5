// @ts-check
/**
 * Entry of a runtime worker thread. Warms up (QuickJS instance loaded, the
 * transpiler and the run path exercised), says `ready`, then runs one program
 * per `run` message. Plain JavaScript, type-checked through JSDoc, so that the
 * thread can load it unbuilt from `src` as well as from `lib`.
 */
import { workerData } from 'node:worker_threads'
import { Engine } from './engine.js'
import { Session } from './session.js'
import { compileProgram } from './transpile.js'

/**
 * @typedef {import('../protocol.js').WorkerData} WorkerData
 * @typedef {import('../protocol.js').WorkerMessage} WorkerMessage
 * @typedef {import('../protocol.js').HostMessage} HostMessage
 * @typedef {import('../protocol.js').RunMessage} RunMessage
 */

const { ctl: ctlBuffer, port } = /** @type {WorkerData} */ (workerData)
const ctl = new Int32Array(ctlBuffer)
const engine = new Engine()
/** @type {Promise<void> | undefined} a QuickJS instance being (re)loaded */
let loading

/** @param {WorkerMessage} message */
const post = message => port.postMessage(message)

/** @param {unknown} error */
const fatal = error => post({ t: 'fatal', message: error instanceof Error ? error.message : String(error) })

port.on('message', (/** @type {HostMessage} */ message) => {
  // results that arrive after their run ended are dropped here
  if (message.t !== 'run') return
  // an instance that failed between runs (making the next isolate, say) is replaced first
  if (!loading && engine.broken) reload(() => {})
  if (loading) loading.then(() => onRun(message), fatal)
  else onRun(message)
})

/** @param {RunMessage} request */
function onRun(request) {
  const session = new Session(engine, request, port, ctl)
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
  }
}

/** @param {() => void} then */
function reload(then) {
  loading = engine.load().then(() => {
    loading = undefined
    engine.prepare()
    then()
  })
  loading.catch(fatal)
}

/**
 * Exercise the whole path, so that a run finds sucrase and the bridge code
 * compiled by the JIT. Once before saying `ready`, then in small steps while
 * the worker is idle: a run that arrives meanwhile waits one step at most.
 * Warm-up runs use a run id the host never hands out.
 */
const warmUpCode = [
  'interface Entry { path: string; size?: number }',
  'type Listing = { entries: Entry[] }',
  'enum Kind { File, Dir }',
  'const list = { entries: [{ path: "a", size: 1 }] } as Listing',
  'const big: Entry[] = list.entries.filter((e: Entry) => (e.size ?? 0) > 0)',
  'console.log(big.length, Kind.File)',
  'return big.map(e => e.path)',
].join('\n')
const warmUpLimits = { timeoutMs: 5000, memoryBytes: 16 << 20, maxSubCalls: 1, maxParallelSubCalls: 1, maxValueBytes: 4096, maxLogBytes: 1024 }
let warmUpSteps = 40

function warmUpStep() {
  for (let i = 0; i < 8; i++) compileProgram(`${warmUpCode}\n// ${warmUpSteps} ${i}`)
  const request = { t: /** @type {const} */ ('run'), run: -1, code: warmUpCode, tools: [], limits: warmUpLimits, deadline: Date.now() + 5000 }
  const session = new Session(engine, request, port, ctl)
  session.run()
  session.release()
  if (engine.broken) return
  engine.prepare()
}

function warmUpWhileIdle() {
  if (warmUpSteps-- <= 0) return
  setImmediate(() => {
    if (!loading && !engine.broken) warmUpStep()
    warmUpWhileIdle()
  })
}

loading = engine.load().then(() => {
  warmUpStep()
  return engine.needsRecycle() ? engine.load() : undefined
})
loading.then(() => {
  loading = undefined
  engine.prepare()
  post({ t: 'ready' })
  warmUpWhileIdle()
}, fatal)
