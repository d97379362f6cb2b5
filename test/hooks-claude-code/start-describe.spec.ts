/**
 * What the plugin's start asks of the sandbox: how it would confine a
 * workspace-write command (`describe`), with real backends and real
 * processes killed while holding a protected entry. The question leases
 * nothing and sweeps no other workspace's records (the first real call
 * does); but what a killed call's command left in the workspace's own
 * protected entries is put back before the settings are read, so a hook it
 * planted is never loaded.
 */
import { execFile, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createKernel, type Kernel } from 'dsh'
import { ledgerDir, stateFile } from '@dsh/sandbox'
import { skipWhen, unavailable } from '../backends.js'
import { usePrivateTmpdir } from '../private-tmpdir.js'
import { markingSettings } from './helpers.js'
import { tempDirs } from '../temp-dirs.js'

// the ledger is shared by every dsh process of the user: this file's records stay its own
usePrivateTmpdir('dsh-hooks-describe-tmp-')
const lib = resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
const dshLib = resolve(import.meta.dirname, '../../core/dsh/lib/index.js')
const run = promisify(execFile)
const backends = ['bwrap', 'landlock'] as const
const why = Object.fromEntries(await Promise.all(backends.map(async (b) => [b, await unavailable(b)] as const))) as Record<(typeof backends)[number], string | undefined>

let kernel: Kernel | undefined
const dirs = tempDirs()
afterEach(async () => {
  await kernel?.dispose()
  kernel = undefined
  dirs.removeAll()
})

const tempDir = (prefix: string): string => dirs.make(prefix)


/** A real process takes `entry` for a call (absent or as it is), its "command" makes `file` hold `text`, and it is killed before giving it back. */
function killedHolder(ws: string, entry: string, file: string, text: string): void {
  const script = `import { leaseProtected } from ${JSON.stringify(lib)}; import { mkdirSync, writeFileSync } from 'node:fs'; leaseProtected([${JSON.stringify(entry)}], [${JSON.stringify(ws)}]); mkdirSync(${JSON.stringify(entry)}, { recursive: true }); writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(text)}); process.kill(process.pid, 'SIGKILL')`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  expect(child.signal, child.stderr).toBe('SIGKILL')
  expect(existsSync(stateFile(ledgerDir(), entry))).toBe(true)
}

function config(ws: string, backend: string) {
  return {
    dataDir: join(tempDir('dsh-hooks-describe-data-'), 'data'),
    sandbox: { workspace: ws, mode: 'workspace-write' as const, backends: [backend as 'bwrap'] },
    plugins: { 'workspace-tools': { workspace: ws }, 'hooks-claude-code': { workspace: ws } },
  }
}

const start = (ws: string, backend: string) => createKernel(config(ws, backend))

async function call(k: Kernel, command: string) {
  const session = k.openSession({ id: 'main' })
  session.beginTurn()
  return k.execute({ callId: 'c1', name: 'bash', arguments: { command }, session })
}

for (const backend of backends) {
  const skip = skipWhen(why[backend] !== undefined, `hooks-claude-code's start under ${backend}`, `the ${backend} backend is unavailable here (${why[backend]})`)
  describe.skipIf(skip)(`hooks-claude-code's start under ${backend}`, () => {
    it('a hook a killed call planted in an absent .claude is put aside before the settings load: never loaded nor run', async () => {
      const ws = tempDir('dsh-hooks-describe-ws-')
      const marks = tempDir('dsh-hooks-describe-marks-')
      const claude = join(ws, '.claude')
      killedHolder(ws, claude, join(claude, 'settings.json'), markingSettings(marks, 'planted'))
      kernel = await start(ws, backend)
      // put back before anything else: the entry was absent, what the command made is beside it, inert
      expect(existsSync(claude)).toBe(false)
      const aside = readdirSync(ws).filter((name) => name.startsWith('.claude.dsh-displaced-'))
      expect(aside).toHaveLength(1)
      expect(readFileSync(join(ws, aside[0], 'settings.json'), 'utf8')).toBe(markingSettings(marks, 'planted'))
      expect(existsSync(stateFile(ledgerDir(), claude))).toBe(false)
      const ran = await call(kernel, 'echo hi')
      expect(ran.isError, ran.error?.message).toBe(false)
      expect(existsSync(join(marks, 'planted'))).toBe(false)
    })

    it('the start leases nothing and leaves another workspace\'s dead record to the first real call, which puts it back', async () => {
      const ws = tempDir('dsh-hooks-describe-ws-')
      const marks = tempDir('dsh-hooks-describe-marks-')
      mkdirSync(join(ws, '.claude'))
      writeFileSync(join(ws, '.claude/settings.json'), markingSettings(marks, 'old'))
      const other = tempDir('dsh-hooks-describe-other-')
      const git = join(other, '.git')
      killedHolder(other, git, join(git, 'hooks-planted'), 'planted')
      // a process of its own (this file's ledger, TMPDIR): the whole-ledger sweep is once a process
      const script = `import { createKernel } from ${JSON.stringify(dshLib)}; import { existsSync, readdirSync } from 'node:fs'
const before = readdirSync(${JSON.stringify(ledgerDir())}).sort().join()
const k = await createKernel(${JSON.stringify(config(ws, backend))})
const out = { ledgerUnchanged: readdirSync(${JSON.stringify(ledgerDir())}).sort().join() === before, otherAtStart: existsSync(${JSON.stringify(git)}) }
const session = k.openSession({ id: 'main' }); session.beginTurn()
const ran = await k.execute({ callId: 'c1', name: 'bash', arguments: { command: 'echo hi' }, session })
Object.assign(out, { ran: !ran.isError, otherAfterCall: existsSync(${JSON.stringify(git)}) })
await k.dispose(); console.log(JSON.stringify(out))`
      const child = await run(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 })
      expect(JSON.parse(child.stdout)).toEqual({ ledgerUnchanged: true, otherAtStart: true, ran: true, otherAfterCall: false })
      expect(readFileSync(join(marks, 'old'), 'utf8')).toBe('ran\n')
      expect(existsSync(stateFile(ledgerDir(), git))).toBe(false)
      expect(readdirSync(other).filter((name) => name.startsWith('.git.dsh-displaced-'))).toHaveLength(1)
    })
  })
}
