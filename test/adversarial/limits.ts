// Resource limits under attack on each real backend: a file write past the
// size limit, an allocation past the memory limit, a CPU loop, a descriptor
// leak and a bounded fork loop. Every attack is bounded on its own (never
// more than 60 processes, 512 MiB, 3 MiB of disk) and each asserts that the
// host is unaffected: the same work outside the sandbox succeeds.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { LocalBackend, SandboxLimits } from '@dsh/sandbox'
import { describeOnBackend, runConfined, tmp } from './harness.js'
import { lacks, skipWhen } from '../backends.js'

const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => fs.existsSync(p))
const MiB = 1024 * 1024

export async function limitsSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} resource-limit suite`)

  describeOnBackend(backend, `resource limits on the ${backend} backend`, skip, (sandbox) => {

    const run = async (script: string, limits: SandboxLimits) => {
      const ws = tmp('ws')
      const confined = await sandbox().service.confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspace: ws, limits })
      const r = await runConfined(confined, ws, { timeoutMs: 30_000 })
      confined.cleanup()
      return { ...r, ws, confined }
    }

    it('a file write stops at fileSizeBytes (SIGXFSZ), and the file is no larger', async () => {
      const r = await run('head -c 3145728 /dev/zero > big; echo "rc=$?"', { fileSizeBytes: MiB })
      expect(r.stdout).toBe('rc=153\n') // 128 + SIGXFSZ
      expect(fs.statSync(path.join(r.ws, 'big')).size).toBe(MiB)
      expect(r.confined.unenforced).not.toContain('limits.fileSizeBytes')
      // the host is unaffected: the same write outside succeeds
      const host = tmp('host')
      expect(spawnSync('/bin/sh', ['-c', `head -c 3145728 /dev/zero > ${host}/big`]).status).toBe(0)
      expect(fs.statSync(path.join(host, 'big')).size).toBe(3 * MiB)
    })

    it.skipIf(skipWhen(!PYTHON, 'the memory and descriptor limit attacks', 'python3 is not in /usr/bin or /usr/local/bin'))('an allocation past memoryBytes fails inside; outside it succeeds', async () => {
      const alloc = `${PYTHON} -c "b = bytearray(512 * 1024 * 1024); print('allocated')"`
      const r = await run(`${alloc} 2>&1 | tail -1`, { memoryBytes: 256 * MiB })
      expect(r.stdout.trim()).toBe('MemoryError')
      expect(spawnSync('/bin/sh', ['-c', alloc], { encoding: 'utf8' }).stdout.trim()).toBe('allocated')
    })

    it.skipIf(!PYTHON)('opening more descriptors than openFiles fails with EMFILE', async () => {
      const open = `${PYTHON} -c "import os
fds = []
try:
    for _ in range(200): fds.append(os.open('/dev/null', os.O_RDONLY))
    print('opened', len(fds))
except OSError as e:
    print(e.strerror, len(fds) + 3)"`
      const r = await run(open, { openFiles: 32 })
      expect(r.stdout.trim()).toBe('Too many open files 32')
      expect(spawnSync('/bin/sh', ['-c', open], { encoding: 'utf8' }).stdout.trim()).toBe('opened 200')
    })

    it('a CPU loop is stopped at cpuSeconds (SIGXCPU)', async () => {
      const r = await run('sh -c "while :; do :; done"; echo "rc=$?"', { cpuSeconds: 1 })
      // 128 + SIGXCPU, or SIGKILL: the soft and hard limits are one, and the kernel sends both at once
      expect(['rc=152\n', 'rc=137\n']).toContain(r.stdout)
    })

    it('a bounded fork loop stops at processes, or the limit is reported as not enforced', async () => {
      // at most 60 sleepers, each gone within 3 s, whatever the outcome
      const r = await run('n=0; i=0; while [ $i -lt 60 ]; do sleep 3 & [ $? -eq 0 ] && n=$((n+1)); i=$((i+1)); done 2>/dev/null; echo "started=$n"; kill $(jobs -p) 2>/dev/null; exit 0', { processes: 20 })
      const started = Number(/started=(\d+)/.exec(r.stdout)?.[1])
      if (process.getuid?.() === 0) {
        // Why: the kernel never checks RLIMIT_NPROC for the host's root user
        expect(r.confined.unenforced).toContain('limits.processes')
        expect(started).toBe(60)
        return
      }
      expect(r.confined.unenforced).not.toContain('limits.processes')
      expect(started).toBeLessThan(20)
    })

    it('a bad limit is refused before anything runs, naming the key', async () => {
      const ws = tmp('ws')
      for (const [limits, pattern] of [[{ processes: 0 }, /limits\.processes must be a positive integer/], [{ memory: 1 }, /limits\.memory is not a limit/], [{ cpuSeconds: 1.5 }, /limits\.cpuSeconds/]] as const) {
        await expect(sandbox().service.confine(['/bin/sh', '-c', 'touch ran'], { mode: 'workspace-write', workspace: ws, limits: limits as SandboxLimits })).rejects.toMatchObject({ code: 'INVALID_POLICY', message: expect.stringMatching(pattern) })
      }
      expect(fs.existsSync(path.join(ws, 'ran'))).toBe(false)
    })
  })
}
