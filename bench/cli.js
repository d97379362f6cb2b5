// The CLI's start-up, as an agent host sees it: spawning `dsh mcp` until its
// first tools/list answer, and `dsh exec` of a tool that does nothing, end to
// end, and the first bash call after `dsh mcp` starts in a project `dsh setup claude-code` set up
// — each against spawning `node -e 0` in the same run; and the floor under the first: node
// reading and compiling, without running, what dsh mcp loads by then (its ES modules, and the
// bundle's script with its code cache). Needs the build (bin/dsh.cjs runs dist/, the bundle, where
// it is there, else lib/).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, now, tempDir } from './lib.js'

/** Calls `handle` with each newline-delimited JSON-RPC message a child writes to `stream`. */
function onMessages(stream, handle) {
  let buffered = ''
  stream.on('data', (chunk) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop()
    for (const line of lines) handle(JSON.parse(line), line)
  })
}

// the package's bin, what `npx dsh` runs
const DSH = fileURLToPath(new URL('../core/dsh/bin/dsh.cjs', import.meta.url))
const FLOOR = fileURLToPath(new URL('./children/cli-floor.js', import.meta.url))
// the bundle's script, which dist/start.cjs compiles with the code cache beside it (not an ES module: NODE_DEBUG=esm does not list it)
const SCRIPT = fileURLToPath(new URL('../core/dsh/dist/cli.cjs', import.meta.url))
const SCRIPT_LOADER = new URL('../core/dsh/scripts/vendor-load.js', import.meta.url).href
const SAMPLES = 15
/** a client's model choosing its first call: the time `dsh mcp` is idle after tools/list */
const MODEL_PAUSE_MS = 500
const WARMUP = 2

/** ms from spawn until the process exits 0. */
function spawnToExit(argv, cwd, env = process.env) {
  return new Promise((resolve, reject) => {
    const start = now()
    const child = spawn(process.execPath, argv, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(now() - start) : reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr}`))))
  })
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }

/**
 * ms from spawning `dsh mcp` until the answer to its first tools/list (sent once initialize is
 * answered); with `modules`, run with NODE_DEBUG=esm and also give the ES modules it loaded by then;
 * with `sigint`, then — once its session is open (the kernel up) — SIGINT it and also give the ms
 * until it exited (`shutdown`).
 */
function mcpFirstList(cwd, modules = false, base = process.env, sigint = false) {
  return new Promise((resolve, reject) => {
    const start = now()
    const env = modules ? { ...base, NODE_DEBUG: 'esm' } : base
    const child = spawn(process.execPath, [DSH, 'mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    let answered = false
    const loaded = new Set()
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      if (modules) for (const match of String(chunk).matchAll(/Storing (file:\/\/\S+)/g)) loaded.add(match[1])
    })
    child.on('error', reject)
    child.on('exit', (code) => { if (!answered) reject(new Error(`dsh mcp exited ${code} before answering tools/list: ${stderr}`)) })
    onMessages(child.stdout, (message, line) => {
      if (message.id === 1) {
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n' + JSON.stringify(LIST) + '\n')
      } else if (message.id === 2) {
        const elapsed = now() - start
        answered = true
        if (!Array.isArray(message.result?.tools)) return reject(new Error(`tools/list answered ${line}`))
        const result = { elapsed, tools: message.result.tools.length, modules: [...loaded] }
        if (!sigint) {
          // resolved once it exited: nothing it still writes (its start-up snapshot) outlives the sample
          child.once('exit', () => resolve(result))
          return child.stdin.end()
        }
        // DESIGN §16.1: gone within 100 ms of SIGINT, its session log closed
        const interrupt = () => {
          const stopped = now()
          child.once('exit', () => resolve({ ...result, shutdown: now() - stopped }))
          child.kill('SIGINT')
        }
        // answered from the start-up snapshot, the kernel may still be starting: its session opens once it is up
        const opened = () => /dsh mcp: session /.test(stderr)
        if (opened()) interrupt()
        else child.stderr.on('data', function wait() { if (opened()) { child.stderr.off('data', wait); interrupt() } })
      }
    })
    child.stdin.write(JSON.stringify(INIT) + '\n')
  })
}

/**
 * ms from spawning `dsh mcp` (in `cwd`, with `env`) until the answer to its first tool call, a bash
 * `echo` sent `pause` ms after tools/list is answered (0: at once); also `call`, that answer's ms
 * after the call was sent, and `list`, the tools/list answer's ms from spawn.
 */
function mcpFirstCall(cwd, env, pause = 0) {
  return new Promise((resolve, reject) => {
    const start = now()
    const child = spawn(process.execPath, [DSH, 'mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    let answered = false
    let list = 0
    let sent = 0
    child.stderr.on('data', (chunk) => { stderr += chunk })
    child.on('error', reject)
    child.on('exit', (code) => { if (!answered) reject(new Error(`dsh mcp exited ${code} before answering the first call: ${stderr}`)) })
    const send = (message) => child.stdin.write(JSON.stringify(message) + '\n')
    onMessages(child.stdout, (message, line) => {
      if (message.id === 1) {
        send({ jsonrpc: '2.0', method: 'notifications/initialized' })
        send(LIST)
      } else if (message.id === 2) {
        list = now() - start
        if (!message.result?.tools?.some((tool) => tool.name === 'bash')) return reject(new Error(`tools/list has no bash tool: ${line.slice(0, 200)}`))
        const call = () => {
          sent = now()
          send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo $((6*7))xyz' } } })
        }
        if (pause) setTimeout(call, pause)
        else call()
      } else if (message.id === 3) {
        const at = now()
        answered = true
        const text = message.result?.content?.[0]?.text ?? ''
        if (message.result?.isError || !text.startsWith('42xyz')) return reject(new Error(`the first bash call answered ${line.slice(0, 300)}`))
        child.once('exit', () => resolve({ elapsed: at - start, call: at - sent, list }))
        child.stdin.end()
      }
    })
    send(INIT)
  })
}

export async function run() {
  const { dir, remove } = tempDir('dsh-bench-cli-')
  try {
    // samples interleaved, so load on the machine weighs on every figure alike
    const node = []
    const mcp = []
    const exec = []
    const shutdown = []
    // `dsh mcp` runs where there is no dsh.yml; `dsh exec` is given one in a directory beside it
    const bare = join(dir, 'bare')
    const configured = join(dir, 'configured')
    mkdirSync(bare)
    mkdirSync(configured)
    const config = join(configured, 'dsh.yml')
    writeFileSync(config, `dataDir: ${join(configured, '.dsh')}\nsandbox:\n  workspace: ${configured}\nplugins:\n  workspace-tools:\n    workspace: ${configured}\n`)
    // the floor: node reading and compiling (not running) what `dsh mcp` loads before its first answer
    const { modules } = await mcpFirstList(bare, true)
    // the bundle runs where the build made it (bin/dsh.cjs: dist/start.cjs and dist/cli.cjs), else lib/'s ES modules
    const scripts = existsSync(SCRIPT) && existsSync(fileURLToPath(new URL('../core/dsh/dist/start.cjs', import.meta.url))) ? [{ file: SCRIPT, loader: SCRIPT_LOADER }] : []
    const list = join(dir, 'modules.json')
    writeFileSync(list, JSON.stringify({ modules, scripts }))
    const bytes = modules.reduce((sum, url) => sum + statSync(new URL(url)).size, 0) + scripts.reduce((sum, { file }) => sum + statSync(file).size, 0)
    const cacheBytes = scripts.reduce((sum, { file }) => sum + statSync(`${file}.cache`).size, 0)
    const compiled = `${modules.length ? `the ${modules.length} ES modules` : 'no ES module'}${scripts.length ? ' and the bundle\'s script with its code cache' : ''} (${Math.round(bytes / 1024)} KiB${scripts.length ? `, cache ${Math.round(cacheBytes / 1024)} KiB` : ''})`
    const floor = []
    // node reads the whole CA bundle NODE_EXTRA_CA_CERTS names as it starts (~30-40 ms on a machine
    // that sets it): the same pair without it, in turns, says what a machine without it sees
    const extraCerts = process.env.NODE_EXTRA_CA_CERTS ? Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS')) : undefined
    const nodePlain = []
    const mcpPlain = []
    // a start with no snapshot of an earlier one (a first start in this directory): a cache of its own, empty
    const cold = []
    const coldEnv = (i) => ({ ...process.env, XDG_CACHE_HOME: join(dir, `cold-${i}`) })
    // the first call: a project and HOME as `dsh setup claude-code` leaves them (its user-scope
    // .claude.json names `dsh mcp` run in the project; no dsh.yml: the default set)
    const home = join(dir, 'home')
    const project = join(dir, 'project')
    mkdirSync(home)
    mkdirSync(project)
    const clientEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TMPDIR: process.env.TMPDIR ?? '/tmp' }
    const setup = spawnSync(process.execPath, [DSH, 'setup', 'claude-code'], { cwd: project, env: clientEnv, encoding: 'utf8' })
    if (setup.status !== 0) throw new Error(`dsh setup claude-code exited ${setup.status}: ${setup.stderr}`)
    const first = []
    const nodeClient = []
    const firstCall = []
    const firstList = []
    const pausedCall = []
    let tools = 0
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const n = await spawnToExit(['-e', '0'], bare)
      const f = await spawnToExit(['--experimental-vm-modules', '--no-warnings', FLOOR, list], bare)
      const m = await mcpFirstList(bare)
      const c = await mcpFirstList(bare, false, coldEnv(i))
      // `ls` of an empty workspace: in process, no sandbox; the call's cost is the pipeline's
      const e = await spawnToExit([DSH, 'exec', 'ls', JSON.stringify({ path: configured }), '--config', config], configured)
      const s = await mcpFirstList(bare, false, process.env, true)
      // the warm-up's first start writes the snapshot the later ones answer from
      const fc = await mcpFirstCall(project, clientEnv)
      const fp = await mcpFirstCall(project, clientEnv, MODEL_PAUSE_MS)
      // its baseline in the client's environment (no NODE_EXTRA_CA_CERTS, whatever the bench's has)
      const nc = await spawnToExit(['-e', '0'], project, clientEnv)
      const plain = extraCerts && { n: await spawnToExit(['-e', '0'], bare, extraCerts), m: await mcpFirstList(bare, false, extraCerts) }
      tools = m.tools
      if (i >= WARMUP) {
        node.push(n)
        floor.push(f)
        mcp.push(m.elapsed)
        cold.push(c.elapsed)
        exec.push(e)
        shutdown.push(s.shutdown)
        first.push(fc.elapsed)
        nodeClient.push(nc)
        firstCall.push(fc.call)
        firstList.push(fc.list)
        pausedCall.push(fp.call)
        if (plain) {
          nodePlain.push(plain.n)
          mcpPlain.push(plain.m.elapsed)
        }
      }
    }
    const baseline = { name: 'node -e 0', value: median(node), unit: 'ms' }
    const clientBaseline = { name: 'node -e 0 (client env)', value: median(nodeClient), unit: 'ms' }
    // the targets, read as the time over node's own start
    const times = (values, target) => `+${Math.round(median(values) - baseline.value)} ms over node -e 0${target ? `, target +${target} ms` : ''}; ${(median(values) / baseline.value).toFixed(1)}x`
    const withoutCerts = extraCerts ? `; without NODE_EXTRA_CA_CERTS: ${Math.round(median(mcpPlain))} ms, node -e 0 ${Math.round(median(nodePlain))} ms` : ''
    return [
      { name: 'cli.startup_ms', value: median(mcp), unit: 'ms', target: '+60 ms over node -e 0', baseline, note: `spawn \`dsh mcp\` (no config, ${tools} tools) until its first tools/list answer, a start like the one before it in the same directory (answered from its start-up snapshot) (${times(mcp, 60)}); median of ${SAMPLES}${withoutCerts}` },
      { name: 'cli.startup_cold_ms', value: median(cold), unit: 'ms', baseline, note: `the same, with no start-up snapshot (an empty cache: the first start in a directory, or after a config change) (${times(cold)}); median of ${SAMPLES}` },
      { name: 'cli.startup_floor_ms', value: median(floor), unit: 'ms', baseline, note: `node reading and compiling, not running, ${compiled} \`dsh mcp\` loads before its first tools/list answer (${times(floor)}); median of ${SAMPLES}` },
      { name: 'cli.mcp_shutdown_ms', value: median(shutdown), unit: 'ms', target: '<= 100 ms', note: `\`dsh mcp\` (no config) after its first tools/list answer: SIGINT to exit, the session closed (${Math.round(Math.min(...shutdown))}–${Math.round(Math.max(...shutdown))} ms); median of ${SAMPLES}` },
      { name: 'cli.first_call_ms', value: median(first), unit: 'ms', baseline: clientBaseline, note: `spawn \`dsh mcp\` (a project set up by \`dsh setup claude-code\`, its start-up snapshot warm; the client's environment: HOME, PATH, LANG, TMPDIR) until the answer to a bash \`echo\` sent once tools/list is answered (+${Math.round(median(first) - clientBaseline.value)} ms over node -e 0 in that environment); the call's own part, answer − sent: ${Math.round(median(firstCall))} ms (${Math.round(Math.min(...firstCall))}–${Math.round(Math.max(...firstCall))}); tools/list at ${Math.round(median(firstList))} ms; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; median of ${SAMPLES}` },
      { name: 'cli.first_call_idle_ms', value: median(pausedCall), unit: 'ms', note: `the same first bash call sent ${MODEL_PAUSE_MS} ms after tools/list (a client's model choosing it; dsh mcp idle meanwhile): answer − sent (${Math.round(Math.min(...pausedCall))}–${Math.round(Math.max(...pausedCall))} ms); median of ${SAMPLES}` },
      { name: 'cli.exec_noop_ms', value: median(exec), unit: 'ms', target: '+100 ms over node -e 0', baseline, note: `\`dsh exec ls\` (workspace-tools, an empty workspace), spawn to exit (${times(exec, 100)}); median of ${SAMPLES}` },
    ]
  } finally {
    remove()
  }
}

