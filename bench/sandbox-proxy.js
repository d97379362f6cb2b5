// sandbox.proxy_connect_ms: what the sandbox's network proxy adds to opening
// a TCP connection to a loopback server — through a lease of the real proxy
// (HTTP CONNECT with the lease's credential answered 200, the attempt matched
// against the call's host patterns, the name resolved and its address checked,
// and written to a real session log as sandbox/network) against a
// direct connect to the same server, interleaved in the same run, medians
// after warm-up, the client in a process of its own. The figure is the difference in ms (target: at most +1 ms);
// the ratio and the SOCKS5 figure are in the note.
//
// Warm-up: a kernel's proxy serves every call of its life, so the figure is taken once V8 has
// compiled the connection path (WARMUP rounds; 30 left most of it interpreted, and then over half
// the proxy's CPU was V8 compiling and running unoptimized code). The note also gives the first
// rounds as the bench measured them before (rounds 31-330, CPU over rounds 1-330): a fresh kernel's
// first connections. The proxy's CPU is this process's (user + system, the compiler's threads and
// the server's accepts included) between marks the client sets, per proxied connection.
import { spawn } from 'node:child_process'
import net from 'node:net'
import { Session } from '@dsh/kernel'
import { NetworkProxy, resolveNetwork, sessionRecorder } from '@dsh/sandbox'
import { median, tempDir } from './lib.js'

const SAMPLES = 300
const WARMUP = 300
/** the rounds the bench measured before its warm-up grew: medians over rounds 31-330, CPU over 1-330 */
const COLD = { from: 30, to: 330 }

const lookup = (hostname, options, callback) => {
  if (hostname !== 'bench.test') return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }))
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

// The client runs in a process of its own, as a confined command does: the proxy's event loop is not also the client's.
const CLIENT = `
const net = require('node:net')
const now = () => Number(process.hrtime.bigint()) / 1e6
const [target, proxy, samples, user, password, marks] = JSON.parse(process.argv[1])
// at each mark the client says so and waits for the bench to read its CPU
const mark = () => new Promise((resolve) => { process.stdin.once('data', resolve); process.stdout.write('mark\\n') })
function timed(port, greet) {
  return new Promise((resolve, reject) => {
    const start = now()
    const socket = net.connect(port, '127.0.0.1')
    socket.setNoDelay(true)
    let data = Buffer.alloc(0), step = 0
    const finish = () => { const ms = now() - start; socket.destroy(); resolve(ms) }
    socket.on('error', reject)
    socket.on('connect', () => (greet.length ? socket.write(Buffer.from(greet[0][0], 'base64')) : finish()))
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk])
      if (data.length < greet[step][1]) return
      if (++step === greet.length) return finish()
      socket.write(Buffer.from(greet[step][0], 'base64'))
    })
  })
}
const b64 = (x) => Buffer.from(x).toString('base64')
const basic = Buffer.from(user + ':' + password).toString('base64')
const connect = [[b64('CONNECT bench.test:' + target + ' HTTP/1.1\\r\\nHost: bench.test:' + target + '\\r\\nProxy-Authorization: Basic ' + basic + '\\r\\n\\r\\n'), 39]]
const socks = [
  [b64([5, 1, 2]), 2],
  [b64(Buffer.concat([Buffer.from([1, user.length]), Buffer.from(user), Buffer.from([password.length]), Buffer.from(password)])), 4],
  [b64(Buffer.concat([Buffer.from([5, 1, 0, 3, 10]), Buffer.from('bench.test'), Buffer.from([target >> 8, target & 255])])), 14],
]
;(async () => {
  const times = { direct: [], connect: [], socks: [] }
  for (let i = 0; i < samples; i++) {
    if (marks.includes(i)) await mark()
    times.direct.push(await timed(target, []))
    times.connect.push(await timed(proxy, connect))
    times.socks.push(await timed(proxy, socks))
  }
  await mark()
  process.stdin.destroy()
  process.stdout.write(JSON.stringify(times) + '\\n')
})()
`

/** Runs the client; `onMark` is called at each of its marks (and at its end) before it goes on. */
function client(target, proxy, samples, credential, marks, onMark) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CLIENT, JSON.stringify([target, proxy, samples, credential.username, credential.password, marks])], { stdio: ['pipe', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      for (let nl; (nl = out.indexOf('\n')) >= 0 && out.startsWith('mark\n');) {
        out = out.slice(nl + 1)
        onMark()
        child.stdin.write('.')
      }
    })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the client exited ${code}`))))
  })
}

export async function run() {
  const tmp = tempDir('dsh-bench-proxy-')
  const server = net.createServer((s) => s.on('error', () => {}))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const target = server.address().port
  const session = new Session(tmp.dir, { id: 'bench-proxy' })
  const proxy = new NetworkProxy({ lookup })
  try {
    // local: the bench's server is on loopback, where an allowed name may lead only when marked so
    const lease = await proxy.open(resolveNetwork({ allow: ['local:bench.test'] }), 'tcp', sessionRecorder({ session, callId: 'bench' }))
    // CPU read at the start, at the end of the warm-up (round 300), of the cold rounds (330) and at the end
    const cpu = []
    const onMark = () => cpu.push(process.cpuUsage())
    onMark()
    const all = await client(target, lease.endpoint.port, SAMPLES + WARMUP, lease.endpoint.credential, [COLD.to, WARMUP], onMark)
    // this process's CPU per proxied connection (the server's accepts included), two a round
    const cpuMs = (from, to, rounds) => (cpu[to].user + cpu[to].system - cpu[from].user - cpu[from].system) / 1000 / (2 * rounds)
    const warmCpu = cpuMs(1, 3, SAMPLES)
    const coldCpu = cpuMs(0, 2, COLD.to)
    const times = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.slice(WARMUP)]))
    const cold = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.slice(COLD.from, COLD.to)]))
    const direct = median(times.direct)
    const viaConnect = median(times.connect)
    const viaSocks = median(times.socks)
    const events = session.events().filter((e) => e.type === 'sandbox/network').length
    return [{
      name: 'sandbox.proxy_connect_ms', value: viaConnect - direct, unit: 'ms', target: '<= +1 ms',
      baseline: { name: 'direct TCP connect to the same loopback server', value: direct, unit: 'ms' },
      note: `through the proxy (HTTP CONNECT) ${viaConnect.toFixed(3)} ms = ${(viaConnect / direct).toFixed(1)}x direct; SOCKS5 ${viaSocks.toFixed(3)} ms (+${(viaSocks - direct).toFixed(3)} ms); the proxy's CPU ${warmCpu.toFixed(3)} ms a connection; first rounds (31-330, as measured before): +${(median(cold.connect) - median(cold.direct)).toFixed(3)} ms, SOCKS5 +${(median(cold.socks) - median(cold.direct)).toFixed(3)} ms, CPU ${coldCpu.toFixed(3)} ms a connection; ${events} sandbox/network events written`,
    }]
  } finally {
    proxy.close()
    session.close()
    server.close()
    tmp.remove()
  }
}
