// @ts-check
/**
 * Entry of a runtime worker thread. Warms up (QuickJS instance loaded, the
 * transpiler and the run path exercised once), says `ready`, then runs one
 * program per `run` message. Plain JavaScript, type-checked through JSDoc, so
 * that the thread can load it unbuilt from `src` as well as from `lib`.
 */
import { workerData } from 'node:worker_threads'
import { Engine } from './engine.js'
import { Session } from './session.js'

/**
 * @typedef {import('../protocol.js').WorkerData} WorkerData
 * @typedef {import('../protocol.js').WorkerMessage} WorkerMessage
 * @typedef {import('../protocol.js').HostMessage} HostMessage
 * @typedef {import('../protocol.js').RunMessage} RunMessage
 */

const { ctl: ctlBuffer, port } = /** @type {WorkerData} */ (workerData)
const ctl = new Int32Array(ctlBuffer)
const engine = new Engine()

/** @param {WorkerMessage} message */
const post = message => port.postMessage(message)

/** @param {unknown} error */
const fatal = error => post({ t: 'fatal', message: error instanceof Error ? error.message : String(error) })

port.on('message', (/** @type {HostMessage} */ message) => {
  // results that arrive after their run ended are dropped here
  if (message.t === 'run') onRun(message)
})

/** @param {RunMessage} request */
function onRun(request) {
  const { outcome, logs } = new Session(engine, request, port, ctl).run()
  const recycling = engine.needsRecycle()
  post({ t: 'done', run: request.run, outcome, logs, recycling })
  if (recycling) engine.load().then(() => post({ t: 'ready' }), fatal)
}

/**
 * Run a small typed program through the whole path once, so that the first
 * real run finds the JIT warm. Uses a run id the host never hands out.
 */
function warmUp() {
  const limits = {
    timeoutMs: 5000,
    memoryBytes: 16 * 1024 * 1024,
    maxSubCalls: 1,
    maxParallelSubCalls: 1,
    maxValueBytes: 1024,
    maxLogBytes: 1024,
  }
  const code = 'interface P { x: number }\nconst p: P = { x: 1 }\nconsole.log(p)\nreturn [p.x as number, typeof tools]'
  for (let i = 0; i < 3; i++) {
    new Session(engine, { t: 'run', run: -1, code, tools: [], limits, deadline: Date.now() + 5000 }, port, ctl).run()
  }
}

engine
  .load()
  .then(() => {
    warmUp()
    return engine.needsRecycle() ? engine.load() : undefined
  })
  .then(() => post({ t: 'ready' }), fatal)
