// What a client sees when the proxy refuses a connection: curl through a
// lease to an unlisted host gets 403 with the host, the reason and the
// setting that allows it in the body (plain HTTP and CONNECT), SOCKS5 gets
// reply 2 ("connection not allowed by ruleset"), and the CLI's bundle — where
// proxy-chain's error class is renamed — answers the same 403, never
// "500 Internal error in proxy server".
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NetworkProxy, resolveNetwork, type ProxyLease, type ResolvedNetworkRules } from '@dsh/sandbox'
import { sandboxBackend, skipWhen } from '../backends.js'
import { startWeb, testLookup, type Web } from './network-helpers.js'
import { dshEnv } from '../cache-home.js'

const run = promisify(execFile)
const CURL = '/usr/bin/curl'
const noCurl = skipWhen(!fs.existsSync(CURL), 'the proxy\'s refusals seen by curl', `${CURL} is not installed`)
const root = path.join(import.meta.dirname, '../..')
const BIN = path.join(root, 'core/dsh/bin/dsh.cjs')
const BUNDLE = path.join(root, 'core/dsh/dist/start.cjs')

const rules = (allow: string[]) => resolveNetwork({ allow }) as ResolvedNetworkRules
const proxyUrl = (lease: ProxyLease, scheme = 'http') => `${scheme}://${lease.endpoint.credential.username}:${lease.endpoint.credential.password}@127.0.0.1:${lease.endpoint.port}`

/** curl's stdout, stderr and exit code (it exits non-zero on a refused tunnel: that is the point). */
async function curl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(CURL, ['-sS', '-i', '--max-time', '8', ...args], { encoding: 'utf8' })
    return { stdout, stderr, code: 0 }
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number }
    return { stdout: e.stdout, stderr: e.stderr, code: e.code }
  }
}

/** Everything the lease answers to `request`, until it closes the connection. */
function ask(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    let data = ''
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request))
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (data += chunk))
    socket.on('close', () => resolve(data))
    socket.on('error', () => resolve(data))
  })
}

const REMEDY = 'To allow it: add "denied.test" to sandbox.network.allow in dsh.yml.'

describe.skipIf(noCurl)('the proxy\'s refusals', () => {
  let web: Web
  let proxy: NetworkProxy
  let lease: ProxyLease
  beforeAll(async () => {
    web = await startWeb()
    proxy = new NetworkProxy({ lookup: testLookup })
    lease = await proxy.open(rules(['local:allowed.test']), 'tcp', () => {})
  })
  afterAll(async () => {
    proxy.close()
    await web.close()
  })

  it('plain HTTP: 403 whose body names the host, the reason and sandbox.network.allow', async () => {
    const r = await curl('-x', proxyUrl(lease), `http://denied.test:${web.port}/`)
    expect(r.stdout).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/)
    expect(r.stdout).toContain(`\r\n\r\ndsh sandbox: the connection to denied.test:${web.port} is not allowed: denied.test is not in the network allow list. ${REMEDY}\n`)
    // and the allowed host still goes through the same lease
    expect((await curl('-x', proxyUrl(lease), `http://allowed.test:${web.port}/`)).stdout).toMatch(/hello allowed\.test/)
  })

  it('CONNECT: curl reports the 403, and the answer\'s body names the host and the remedy', async () => {
    const r = await curl('-x', proxyUrl(lease), '--proxytunnel', `http://denied.test:${web.port}/`)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/CONNECT tunnel failed, response 403/)
    const { username, password } = lease.endpoint.credential
    const auth = Buffer.from(`${username}:${password}`).toString('base64')
    const raw = await ask(lease.endpoint.port, `CONNECT denied.test:443 HTTP/1.1\r\nHost: denied.test:443\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`)
    expect(raw).toMatch(/^HTTP\/1\.1 403 /)
    expect(raw).toContain(`dsh sandbox: the connection to denied.test:443 is not allowed: denied.test is not in the network allow list. ${REMEDY}`)
    expect(raw).not.toMatch(/ 500 |Internal error/)
  })

  it('SOCKS5: reply 2, connection not allowed by ruleset', async () => {
    const r = await curl('-x', proxyUrl(lease, 'socks5h'), `http://denied.test:${web.port}/`)
    expect(r.code).toBe(97)
    expect(r.stderr).toMatch(/Can't complete SOCKS5 connection to denied\.test\. \(2\)/)
  })
})

const backend = await sandboxBackend()
const noBundle = skipWhen(!fs.existsSync(BUNDLE) || !backend || noCurl, 'the CLI bundle\'s proxy refusals', !fs.existsSync(BUNDLE) ? `${BUNDLE} is missing (npm run build)` : 'no sandbox backend or curl here')

describe.skipIf(noBundle)('the CLI bundle\'s proxy', () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-refusals-')))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('answers a refused host with 403 and the remedy, for plain HTTP and CONNECT, not "500 Internal error in proxy server"; SOCKS5 with reply 2', () => {
    const config = path.join(dir, 'dsh.yml')
    fs.writeFileSync(config, `dataDir: ${path.join(dir, '.dsh')}\nsandbox:\n  workspace: ${dir}\n  network: { allow: [allowed.test] }\nplugins:\n  workspace-tools: {}\n`)
    const command = 'curl -sS -i --max-time 8 http://denied.test/; curl -sS -i --max-time 8 --proxytunnel http://denied.test/; curl -sS --max-time 8 --proxy "$ALL_PROXY" http://denied.test/'
    const out = spawnSync(process.execPath, [BIN, 'exec', 'bash', JSON.stringify({ command }), '--config', config, '--json'], { cwd: dir, env: dshEnv(), encoding: 'utf8', timeout: 60_000 })
    const value = JSON.parse(out.stdout).result.value as { stdout: string; stderr: string }
    expect(value.stdout).toMatch(/^HTTP\/1\.1 403 Forbidden/)
    expect(value.stdout).toContain(`is not allowed: denied.test is not in the network allow list. ${REMEDY}`)
    expect(value.stdout).not.toMatch(/Internal error in proxy server/)
    expect(value.stderr).toMatch(/CONNECT tunnel failed, response 403/)
    expect(value.stderr).toMatch(/Can't complete SOCKS5 connection to denied\.test\. \(2\)/)
  })
})
