import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { sandboxBackend } from '../backends.js'
import { dshEnv } from '../cache-home.js'

const cli = join(import.meta.dirname, '../../core/dsh/bin/dsh.js')
const backend = await sandboxBackend()
// How each backend refuses the demo's `touch` under read-only: bwrap mounts the host read-only, Landlock denies the open
const REFUSAL = { bwrap: /Read-only file system/, 'landlock-ns': /Read-only file system/, landlock: /touch: cannot touch 'created-by-bash': Permission denied/ }

describe('dsh demo', () => {
  it('runs the scripted session and prints its audit timeline', () => {
    const run = spawnSync(process.execPath, [cli, 'demo'], { env: dshEnv(), encoding: 'utf8', timeout: 120_000 })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    const out = run.stdout
    // not a TTY: plain text
    expect(out).not.toMatch(/\x1b\[/)
    expect(['bwrap', 'landlock-ns', 'landlock'], `a Linux sandbox backend here (${backend})`).toContain(backend)
    expect(out).toContain(`sandbox backend: ${backend}\n`)
    expect(out).toMatch(REFUSAL[backend as keyof typeof REFUSAL])
    // the excerpt ends with bash's hint on the refused write: how to allow it
    expect(out).toMatch(/1\. a shell command runs confined.*\n\s+ok hello from Linux .*sandbox_permissions "require_escalated"/)
    expect(out).toMatch(/2\. a write is refused under read-only, with the way to allow it\n\s+DENIED write needs the sandbox mode workspace-write/)
    expect(out).toMatch(/answered "allow once" automatically by the demo/)
    expect(out).toMatch(/"files":\["approved.txt"\],"bytes":23/)
    expect(out).toMatch(/full text at .*spill/)
    expect(out).toMatch(/DENIED blocked by the team hook: no rm -rf/)
    expect(out).toMatch(/Audit timeline/)
    expect(out).toMatch(/approval\/asked/)
    expect(out).toMatch(/tool\/code-dispatch/)
  })

  it('stops quietly when its reader goes away', () => {
    const run = spawnSync('sh', ['-c', `"${process.execPath}" "${cli}" demo | head -1`], { env: dshEnv(), encoding: 'utf8', timeout: 120_000 })
    expect(run.stdout).toMatch(/^dsh demo/)
    expect(run.stderr).toBe('')
  })
})
