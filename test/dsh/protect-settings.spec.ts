/**
 * The hooks and permission settings files the plugins read, configured
 * outside `.claude/` (issue 29, item 1): each plugin registers them with the
 * sandbox, so on every backend here, under workspace-write, bash cannot
 * change them (or what it changes is put back when the call ends) and
 * write/edit refuse them — and hooks-claude-code, which refused such a file
 * before, loads it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createKernel } from 'dsh'
import { LINUX_BACKENDS as BACKENDS, unavailableLinuxBackends } from '../backends.js'
import { kernelsDisposedAfterEach, turnOf } from '../kernels.js'
import { tempDirs } from '../temp-dirs.js'

const missing = await unavailableLinuxBackends()
const dirs = tempDirs()
const kernels = kernelsDisposedAfterEach(dirs)

// a hook that blocks any bash command mentioning "forbidden"; permission rules that deny reading secret.txt
const HOOKS = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `grep -q forbidden && { echo blocked by hook >&2; exit 2; } || exit 0` }] }] } }) + '\n'
const PERMS = JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } }) + '\n'

for (const backend of BACKENDS) {
  describe.skipIf(missing[backend] !== undefined)(`settings files outside .claude/, on ${backend}`, () => {
    it('load, hold against bash, write and edit, and keep deciding', async () => {
      const ws = dirs.make('dsh-settings-')
      mkdirSync(join(ws, 'config'))
      writeFileSync(join(ws, 'config/hooks.json'), HOOKS)
      writeFileSync(join(ws, 'config/perms.json'), PERMS)
      writeFileSync(join(ws, 'secret.txt'), 's3cret\n')
      const kernel = await createKernel({
        dataDir: join(ws, '.dsh'),
        sandbox: { mode: 'workspace-write', workspace: ws, backends: [backend] },
        plugins: {
          'workspace-tools': { workspace: ws },
          'hooks-claude-code': { workspace: ws, settingsFiles: ['config/hooks.json'], codexFiles: [] },
          'claude-code-permissions': { workspace: ws, settingsFiles: ['config/perms.json'], defaultMode: 'acceptEdits' },
        },
      })
      kernels.push(kernel)
      const call = turnOf(kernel, 's')
      expect((await call('bash', { command: 'echo forbidden' })).error?.code).toBe('DENIED')
      expect((await call('read', { file_path: 'secret.txt' })).error?.code).toBe('DENIED')
      await call('bash', { command: `echo '{}' > config/hooks.json; echo '{}' > config/perms.json; mv config configX && mkdir config && echo '{}' > config/hooks.json` })
      expect(readFileSync(join(ws, 'config/hooks.json'), 'utf8')).toBe(HOOKS)
      expect(readFileSync(join(ws, 'config/perms.json'), 'utf8')).toBe(PERMS)
      for (const file of ['config/hooks.json', 'config/perms.json']) {
        const w = await call('write', { file_path: file, content: '{}' })
        expect(w.isError, file).toBe(true)
        expect(w.content[0]).toMatchObject({ text: expect.stringMatching(/protected path/) })
        const e = await call('edit', { file_path: file, old_string: 'deny', new_string: 'allow' })
        expect(e.isError, file).toBe(true)
      }
      expect(readFileSync(join(ws, 'config/hooks.json'), 'utf8')).toBe(HOOKS)
      expect(readFileSync(join(ws, 'config/perms.json'), 'utf8')).toBe(PERMS)
      // still deciding from what the person wrote
      expect((await call('bash', { command: 'echo forbidden' })).error?.code).toBe('DENIED')
      expect((await call('read', { file_path: 'secret.txt' })).error?.code).toBe('DENIED')
    })
  })
}
