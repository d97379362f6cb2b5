// sandbox.proxy_connect_ms: what the sandbox's network proxy adds to opening
// a TCP connection to a loopback server — through a lease of the real proxy
// (HTTP CONNECT with the lease's credential answered 200, the attempt matched
// against the call's host patterns, the name resolved and its address checked,
// and written to a real session log as sandbox/network) against a
// direct connect to the same server, interleaved in the same run, medians
// after warm-up, the client in a process of its own. The figure is the difference in ms (target: at most +1 ms);
// the ratio and the SOCKS5 figure are in the note.
import { spawn } from 'node:child_process'
import net from 'node:net'
import { Session } from '@dsh/kernel'
import { NetworkProxy, resolveNetwork, sessionRecorder } from '@dsh/sandbox'
import { median, tempDir } from './lib.js'

const SAMPLES = 300
const WARMUP = 30

const lookup = (hostname, options, callback) => {
  if (hostname !== 'bench.test') return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }))
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

// The client runs in a process of its own, as a confined command does: the proxy's event loop is not also the client's.
const CLIENT = `
const net = require('node:net')
const now = () => Number(process.hrtime.bigint()) / 1e6
const [target, proxy, samples, user, password] = JSON.parse(process.argv[1])
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
    times.direct.push(await timed(target, []))
    times.connect.push(await timed(proxy, connect))
    times.socks.push(await timed(proxy, socks))
  }
  process.stdout.write(JSON.stringify(times))
})()
`

function client(target, proxy, samples, credential) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CLIENT, JSON.stringify([target, proxy, samples, credential.username, credential.password])], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
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
    const cpu = process.cpuUsage()
    const all = await client(target, lease.endpoint.port, SAMPLES + WARMUP, lease.endpoint.credential)
    const used = process.cpuUsage(cpu)
    // this process's CPU per proxied connection (the server's accepts included): what the proxy costs, whatever the load
    const cpuMs = (used.user + used.system) / 1000 / (2 * (SAMPLES + WARMUP))
    const times = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.slice(WARMUP)]))
    const direct = median(times.direct)
    const viaConnect = median(times.connect)
    const viaSocks = median(times.socks)
    const events = session.events().filter((e) => e.type === 'sandbox/network').length
    return [{
      name: 'sandbox.proxy_connect_ms', value: viaConnect - direct, unit: 'ms', target: '<= +1 ms',
      baseline: { name: 'direct TCP connect to the same loopback server', value: direct, unit: 'ms' },
      note: `through the proxy (HTTP CONNECT) ${viaConnect.toFixed(3)} ms = ${(viaConnect / direct).toFixed(1)}x direct; SOCKS5 ${viaSocks.toFixed(3)} ms (+${(viaSocks - direct).toFixed(3)} ms); the proxy's CPU ${cpuMs.toFixed(3)} ms a connection; ${events} sandbox/network events written`,
    }]
  } finally {
    proxy.close()
    session.close()
    server.close()
    tmp.remove()
  }
}
