// bash with `sandbox.network: { allow }` through the real kernel (the dsh.yml
// shape): the command reaches a listed address through the proxy, a name
// outside the list is refused, and each connection is in the session log as
// sandbox/network with the call's id. Addresses only, so no resolver is
// needed: the kernel's proxy resolves with the system's.
import fs from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sandboxBackend, skipWhen } from '../backends.js'
import { startWeb, type Web } from '../sandbox/network-helpers.js'
import { setup, teardown } from './helpers.js'

afterEach(teardown)

const backend = await sandboxBackend()
const skip = skipWhen(!backend, 'bash with network by host', 'no sandbox backend can confine bash here')
  || skipWhen(!fs.existsSync('/usr/bin/curl'), 'bash with network by host', '/usr/bin/curl is not installed')

describe.skipIf(skip)('bash, network by host', () => {
  let web: Web
  beforeAll(async () => {
    web = await startWeb()
  })
  afterAll(() => web.close())

  it('reaches what sandbox.network allows, is refused the rest, and the session records both for the call', async () => {
    const { k } = await setup({ network: { allow: ['127.0.0.1'], deny: [] } })
    const command = `curl -fsS --max-time 8 --proxytunnel http://127.0.0.1:${web.port}/; echo " exit=$?"; curl -fsS --max-time 8 http://unlisted.invalid:${web.port}/; echo " exit=$?"`
    const r = await k.call('bash', { command }, { callId: 'net1' })
    expect(r.isError).toBe(false)
    const lines = String((r.value as any).stdout).trim().split('\n')
    expect(lines[0]).toBe(`hello 127.0.0.1:${web.port} exit=0`)
    expect(lines[1]).toMatch(/exit=22$/)
    const events = k.session.events().filter((e) => e.type === 'sandbox/network').map((e) => e.data)
    expect(events).toEqual([
      { callId: 'net1', host: '127.0.0.1', port: web.port, allowed: true, address: '127.0.0.1' },
      { callId: 'net1', host: 'unlisted.invalid', port: web.port, allowed: false, reason: 'unlisted.invalid is not in the network allow list' },
    ])
  })
})
