// The probe's directory is removed whatever the probed command did: with the
// writes refused, let through (the backend is then unavailable), or with more
// written than the probe's two files. Real shells; the "backends" here are
// argv builders that confine nothing, so the writes really happen.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
// the probe's write check is private to @dsh/sandbox: tested here on purpose
import { probeReadOnlyWrite } from '../../core/sandbox/src/probe/profile.js'
import { usePrivateTmpdir } from '../private-tmpdir.js'

const tmp = usePrivateTmpdir('dsh-probe-dir-')
const left = (name: string) => fs.readdirSync(tmp).filter((entry) => entry.startsWith(`dsh-probe-${name}-`))

describe('probeReadOnlyWrite leaves no directory behind', () => {
  it('writes let through: unavailable, and both files and the directory are gone', async () => {
    const result = await probeReadOnlyWrite('open', (argv) => argv)
    expect(result).toEqual({ available: false, reason: 'a write in read-only mode was not refused' })
    expect(left('open')).toEqual([])
  })

  it('more written than the probe\'s files (a subdirectory too): still removed', async () => {
    const result = await probeReadOnlyWrite('more', (argv) => ['/bin/sh', '-c', 'mkdir "$1/sub" && echo x > "$1/sub/f" && echo x > "$1/other" && exec "$@"', 'sh', ...argv])
    expect(result.available).toBe(false)
    expect(left('more')).toEqual([])
  })

  it('a command that never ran: unavailable, the directory removed', async () => {
    const result = await probeReadOnlyWrite('none', () => ['/nonexistent/sandbox'])
    expect(result.available).toBe(false)
    expect(result.reason).toMatch(/did not run/)
    expect(left('none')).toEqual([])
  })
})
