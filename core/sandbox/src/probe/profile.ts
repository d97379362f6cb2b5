/**
 * A probe really runs a read-only profile: a shell that says it ran, then
 * tries to overwrite a file in its workspace and to create another. The
 * backend works only if the command ran and both writes were refused; a
 * backend that cannot start the command, or lets the write through, is
 * unavailable.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { rm, rmdir, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeError } from '@dsh/kernel'
import { sandboxEnv } from '../policy/env.js'
import { PROTECTED_NAMES } from '../protected/names.js'
import { DEFAULT_LIMITS } from '../policy/limits.js'
import { runProbeCommand } from './command.js'
import type { ResolvedPolicy } from '../types.js'

const SCRIPT = 'echo dsh-probe-ran; echo pwned > "$1/probe"; echo pwned > "$1/new"; exit 0'
const TIMEOUT_MS = 15_000

export interface WriteProbe {
  available: boolean
  reason: string
}

export async function probeReadOnlyWrite(name: string, build: (argv: readonly string[], policy: ResolvedPolicy) => readonly string[]): Promise<WriteProbe> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `dsh-probe-${name}-`)))
  try {
    writeFileSync(join(dir, 'probe'), 'original')
    const policy: ResolvedPolicy = { mode: 'read-only', workspace: dir, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES, registeredPaths: [] }
    const argv = build(['/bin/sh', '-c', SCRIPT, 'sh', dir], policy)
    const run = await runProbeCommand(argv[0], argv.slice(1), { env: sandboxEnv(dir), cwd: dir, timeoutMs: TIMEOUT_MS })
    const untouched = readFileSync(join(dir, 'probe'), 'utf8') === 'original' && !existsSync(join(dir, 'new'))
    if (!run.stdout.includes('dsh-probe-ran')) {
      const why = run.error ?? (run.stderr.trim().split('\n')[0] || `exit ${run.exitCode ?? run.signal}`)
      return { available: false, reason: `the probe command did not run: ${why}` }
    }
    if (!untouched) return { available: false, reason: 'a write in read-only mode was not refused' }
    return { available: true, reason: 'a read-only profile ran and refused a write' }
  } catch (error) {
    return { available: false, reason: `probe failed: ${describeError(error)}` }
  } finally {
    await removeProbeDir(dir)
  }
}

/**
 * The probe's directory holds `probe`, and `new` when a write got through: each removed by name,
 * then the directory, off the main thread (right after bwrap's exit, the directory's rmdir can
 * wait on the kernel for milliseconds while the sandbox's mount namespace goes away). Anything else
 * there (a backend that let more through) falls back to a recursive rm — whose first use in a
 * process loads and compiles node's rimraf on the way to the first answer of `dsh mcp`, for two files.
 */
async function removeProbeDir(dir: string): Promise<void> {
  try {
    for (const name of ['probe', 'new']) {
      await unlink(join(dir, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error
      })
    }
    await rmdir(dir)
  } catch {
    await rm(dir, { recursive: true, force: true }).catch(() => {})
  }
}
