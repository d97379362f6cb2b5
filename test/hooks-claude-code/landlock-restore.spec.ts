/**
 * Workspace settings under Landlock alone, with the real launcher: the
 * backend cannot keep `.claude` read-only, so a confined command may rewrite
 * `.claude/settings.json` during its call, and the sandbox puts it back
 * after it. The plugin reads the settings through the sandbox's ledger
 * (protect.ts rule 4): a planted hook is never loaded nor run — while the
 * call runs other calls' hooks come from the old settings, after it the file
 * is back — and a restore that fails leaves the file refused. Runs on every
 * machine where Landlock works, bwrap or not: the backend is forced.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createKernel, type Kernel } from 'dsh'
import { ledgerDir, unrestoredFile } from '@dsh/sandbox'
import { skipWhen, unavailable } from '../backends.js'
import { markingSettings } from './helpers.js'
import { tempDirs } from '../temp-dirs.js'

const why = await unavailable('landlock')
const noLandlock = skipWhen(why !== undefined, 'workspace settings under the real Landlock launcher', `the landlock backend is unavailable here (${why})`)

let kernel: Kernel | undefined
const dirs = tempDirs()
const undo: Array<() => void> = []
afterEach(async () => {
  for (const step of undo.splice(0).reverse()) step()
  await kernel?.dispose()
  kernel = undefined
  dirs.removeAll()
})

const tempDir = (prefix: string): string => dirs.make(prefix)


function count(marks: string, name: string): number {
  const file = join(marks, name)
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0
}

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((done) => setTimeout(done, 20))
  }
}

interface Setup {
  ws: string
  marks: string
  original: string
  planted: string
  call(name: string, args: unknown, session?: string): ReturnType<Kernel['execute']>
}

async function start(): Promise<Setup> {
  const ws = tempDir('dsh-hooks-landlock-ws-')
  const marks = tempDir('dsh-hooks-landlock-marks-')
  mkdirSync(join(ws, '.claude'))
  const original = markingSettings(marks, 'old')
  writeFileSync(join(ws, '.claude/settings.json'), original)
  kernel = await createKernel({
    dataDir: join(ws, '.dsh'),
    sandbox: { workspace: ws, mode: 'workspace-write', backends: ['landlock'] },
    plugins: { 'workspace-tools': { workspace: ws }, 'hooks-claude-code': { workspace: ws } },
  })
  const sessions = new Map<string, ReturnType<Kernel['openSession']>>()
  let n = 0
  return {
    ws,
    marks,
    original,
    planted: markingSettings(marks, 'planted'),
    call(name, args, id = 'main') {
      let session = sessions.get(id)
      if (!session) {
        session = kernel!.openSession({ id })
        session.beginTurn()
        sessions.set(id, session)
      }
      return kernel!.execute({ callId: `${id}-${++n}`, name, arguments: args, session })
    },
  }
}

/** A bash command that plants `text` as .claude/settings.json, says so, and waits (at most 20 s) for `go`. */
function plantAndWait(text: string): string {
  return `echo ${Buffer.from(text).toString('base64')} | base64 -d > .claude/settings.json && touch planted.ready; i=0; while [ ! -e go ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`
}

describe.skipIf(noLandlock)('hooks-claude-code under Landlock alone (the real launcher)', () => {
  it('a clean workspace\'s settings load and their hooks run', async () => {
    const t = await start()
    const ran = await t.call('bash', { command: 'echo hi' })
    expect(ran.isError).toBe(false)
    expect(count(t.marks, 'old')).toBe(1)
    const read = await t.call('read', { file_path: join(t.ws, '.claude/settings.json') })
    expect(read.isError).toBe(false)
    expect(count(t.marks, 'old')).toBe(2)
  })

  it('a hook a confined command plants in .claude/settings.json is never loaded nor run: other calls use the old settings meanwhile, and the file is put back', async () => {
    const t = await start()
    const bash = t.call('bash', { command: plantAndWait(t.planted) })
    await until('the command to plant its hook', () => existsSync(join(t.ws, 'planted.ready')))
    // the file on disk is the planted one while the call runs
    expect(readFileSync(join(t.ws, '.claude/settings.json'), 'utf8')).toBe(t.planted)
    // the watcher's debounce passes, then another call (another session) runs its hooks
    await new Promise((done) => setTimeout(done, 300))
    const during = await t.call('read', { file_path: join(t.ws, 'planted.ready') }, 'other')
    expect(during.isError).toBe(false)
    expect(count(t.marks, 'old')).toBe(2) // the bash call's own hook, then this one's
    expect(count(t.marks, 'planted')).toBe(0)

    writeFileSync(join(t.ws, 'go'), '')
    const result = await bash
    expect(result.isError).toBe(false)
    expect(readFileSync(join(t.ws, '.claude/settings.json'), 'utf8')).toBe(t.original)
    const restored = kernel!.openSession({ id: 'main' }).events().filter((e) => e.type === 'sandbox/restored')
    expect(restored.map((e) => e.data)).toEqual([{ callId: 'main-1', paths: [join(t.ws, '.claude')] }])

    const after = await t.call('read', { file_path: join(t.ws, 'go') }, 'other')
    expect(after.isError).toBe(false)
    expect(count(t.marks, 'old')).toBe(3)
    expect(count(t.marks, 'planted')).toBe(0)
  })

  it('a restore that fails leaves the file refused, saying why, and the planted hook never runs', async (ctx) => {
    const t = await start()
    const bash = t.call('bash', { command: plantAndWait(t.planted) })
    await until('the command to plant its hook', () => existsSync(join(t.ws, 'planted.ready')))
    // the write-back fails: the planted file cannot be removed (chattr +i, from the host)
    const file = join(t.ws, '.claude/settings.json')
    try {
      execFileSync('chattr', ['+i', file], { stdio: 'pipe' })
    } catch (error) {
      writeFileSync(join(t.ws, 'go'), '')
      await bash
      console.warn(`skipping the failed-restore check: chattr +i is refused here (${(error as Error).message.split('\n')[0]})`)
      return ctx.skip()
    }
    undo.push(() => execFileSync('chattr', ['-i', file]))
    undo.push(() => rmSync(unrestoredFile(ledgerDir(), join(t.ws, '.claude')), { force: true }))
    writeFileSync(join(t.ws, 'go'), '')
    const result = await bash
    // the call's own error (the sandbox could not put back) or its PostToolUse stage, refused now, says so
    expect(result.isError).toBe(true)
    expect(result.error?.message).toMatch(/putting back .*\.claude after a confined call failed/)
    expect(readFileSync(file, 'utf8')).toBe(t.planted)

    const next = await t.call('read', { file_path: join(t.ws, 'go') }, 'other')
    expect(next.isError).toBe(true)
    expect(next.error?.message).toMatch(/refusing to load hooks: putting back .*\.claude after a confined call failed .*; check .*\.claude, then run `dsh sandbox clear .*\.claude`/)
    expect(count(t.marks, 'planted')).toBe(0)
  })
})
