// The Linux chain where the kernel refuses user namespaces (as inside a
// container with the default seccomp profile): bwrap and landlock-ns both
// fail their probes, saying why, and plain Landlock confines the call,
// reporting what it cannot enforce. The refusal is real: the probe runs in a
// user namespace whose user.max_user_namespaces is 0, so no namespace can be
// made below it. Runs the built package (npm run build), as the e2e specs do.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { skipWhen } from '../backends.js'

const probe = path.join(import.meta.dirname, '../fixtures/chain-probe.mjs')
const REFUSE = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"'
const unshare = process.platform === 'linux' ? spawnSync('unshare', ['-Ur', 'sh', '-c', REFUSE, '/bin/true'], { encoding: 'utf8' }) : undefined
const skip = skipWhen(unshare?.status !== 0, 'the chain fallback spec', `this machine cannot make a user namespace that refuses further ones (${unshare?.stderr?.trim() || process.platform})`)

describe.skipIf(skip)('the Linux chain where user namespaces are refused', () => {
  it('bwrap and landlock-ns are unavailable with their reasons, and plain landlock confines the call', () => {
    const run = spawnSync('unshare', ['-Ur', 'sh', '-c', REFUSE, process.execPath, probe], { encoding: 'utf8', timeout: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    const found = JSON.parse(run.stdout)
    expect(found.chosen).toBe('landlock')
    expect(found.backend).toBe('landlock')
    expect(found.candidates.landlock).toBe('available')
    expect(found.candidates['landlock-ns']).toMatch(/landlock-run: clone: No space left on device/)
    expect(found.candidates.bwrap).not.toBe('available')
    // what plain Landlock cannot enforce is said, never claimed
    expect(found.unenforced).toEqual(expect.arrayContaining(['metadata', 'launcher-sigkill', 'host-processes', 'protected-paths']))
  })

  it('the same probe outside that namespace finds landlock-ns available', () => {
    const run = spawnSync(process.execPath, [probe], { encoding: 'utf8', timeout: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).candidates['landlock-ns']).toBe('available')
  })
})
