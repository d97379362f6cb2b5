/**
 * End to end with the real workspace tools: Claude Code hooks see our `bash`
 * and `write` as `Bash` and `Write` with Claude Code's argument names, and
 * decide before the confined command or the file write happens.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createKernel, type Kernel } from 'dsh'
import { sandboxBackend } from '../backends.js'
import { fixture, group } from './helpers.js'

// Where the sandbox cannot keep `.claude/` read-only (Landlock), settings inside the workspace are
// refused (settings.spec.ts), so there the same hooks come from a file outside every writable root.
const settingsOutside = (await sandboxBackend()) === 'landlock'

let kernel: Kernel | undefined
const dirs: string[] = []
afterEach(async () => {
  await kernel?.dispose()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  kernel = undefined
})

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

it('hooks written for Claude Code guard the real bash and write tools', async () => {
  const ws = tempDir('dsh-hooks-ws-')
  const settingsDir = settingsOutside ? tempDir('dsh-hooks-settings-') : join(ws, '.claude')
  mkdirSync(settingsDir, { recursive: true })
  writeFileSync(join(settingsDir, 'settings.json'), JSON.stringify({
    hooks: { PreToolUse: [group('Bash', fixture('deny-rm.sh'), fixture('devstdin.sh')), group('Write', fixture('deny.py'))] },
  }))
  const hooks = settingsOutside ? { workspace: ws, settingsFiles: [join(settingsDir, 'settings.json')] } : { workspace: ws }
  kernel = await createKernel({
    dataDir: join(ws, '.dsh'),
    sandbox: { workspace: ws, mode: 'workspace-write' },
    plugins: { 'workspace-tools': { workspace: ws }, 'hooks-claude-code': hooks },
  })
  const session = kernel.openSession({ id: 'e2e' })
  session.beginTurn()
  let n = 0
  const call = (name: string, args: unknown) => kernel!.execute({ callId: `e2e-${++n}`, name, arguments: args, session })

  const denied = await call('bash', { command: 'rm -rf . && touch gone' })
  expect(denied.error?.message).toContain('rm -rf is not allowed here')
  expect(existsSync(join(ws, 'gone'))).toBe(false)

  const viaDevStdin = await call('bash', { command: 'touch forbidden-marker' })
  expect(viaDevStdin.error?.message).toContain('read via /dev/stdin')
  expect(existsSync(join(ws, 'forbidden-marker'))).toBe(false)

  const ran = await call('bash', { command: 'echo hello > made-by-bash' })
  expect(ran.isError).toBe(false)
  expect(existsSync(join(ws, 'made-by-bash'))).toBe(true)

  expect((await call('write', { file_path: join(ws, 'prod.env'), content: 'SECRET=1' })).error?.message).toContain('holds secrets')
  expect(existsSync(join(ws, 'prod.env'))).toBe(false)
  expect((await call('write', { file_path: join(ws, 'notes.md'), content: 'ok' })).isError).toBe(false)

  const invoked = session.events().filter((e) => e.type === 'hook/invoked').map((e: any) => e.data.toolName)
  expect(new Set(invoked)).toEqual(new Set(['Bash', 'Write']))
}, 60_000)
