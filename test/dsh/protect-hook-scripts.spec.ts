/**
 * The scripts hook commands run from the workspace (issue 29, item 1; DESIGN
 * §16.5): `bash scripts/check.sh`, `./.hooks/pre.sh`, `node tools/guard.mjs`
 * each run unconfined, so hooks-claude-code registers them with the
 * sandbox. On every backend here, under workspace-write, a confined bash
 * that rewrites one, replaces it, renames it away or renames its directory
 * away leaves it as it was (refused where the backend keeps it read-only, put
 * back when the call ends where it cannot), write and edit refuse it, and
 * the hooks then still run the originals.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LINUX_BACKENDS as BACKENDS, unavailableLinuxBackends } from '../backends.js'
import { hookWorkspace } from '../hook-workspace.js'
import { kernelsDisposedAfterEach } from '../kernels.js'
import { tempDirs } from '../temp-dirs.js'

const missing = await unavailableLinuxBackends()
const dirs = tempDirs()
const kernels = kernelsDisposedAfterEach(dirs)

// each script blocks a bash command naming its own word, so a denial shows which original ran
const SCRIPTS: Record<string, string> = {
  'scripts/check.sh': 'grep -q forbidden-one && { echo blocked by check.sh >&2; exit 2; }; exit 0\n',
  '.hooks/pre.sh': '#!/bin/sh\ngrep -q forbidden-two && { echo blocked by pre.sh >&2; exit 2; }; exit 0\n',
  'tools/guard.mjs': `let input = ''\nprocess.stdin.on('data', (d) => (input += d)).on('end', () => {\n  if (input.includes('forbidden-three')) { console.error('blocked by guard.mjs'); process.exit(2) }\n})\n`,
}
const COMMANDS = ['bash scripts/check.sh', '"$CLAUDE_PROJECT_DIR"/.hooks/pre.sh', `${process.execPath} tools/guard.mjs`]
const SETTINGS = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: COMMANDS.map((command) => ({ type: 'command', command })) }] } }) + '\n'
const WORDS = ['forbidden-one', 'forbidden-two', 'forbidden-three']
const NOOP = 'exit 0\n'

// rewrite in place, replace by a rename over it, rename it away and plant another, rename its directory away and plant another
const ATTACKS = (file: string) => [
  `printf '${NOOP}' > ${file} && echo PLANTED`,
  `printf '${NOOP}' > /tmp/x && cp /tmp/x ${file}.new && mv -f ${file}.new ${file} && echo PLANTED`,
  `mv ${file} ${file}.away && printf '${NOOP}' > ${file} && echo PLANTED`,
  `d=$(dirname ${file}) && mv $d $d.away && mkdir $d && printf '${NOOP}' > ${file} && echo PLANTED`,
]

function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((part) => part.text ?? '').join('\n')
}

for (const backend of BACKENDS) {
  describe.skipIf(missing[backend] !== undefined)(`hook scripts in the workspace, on ${backend}`, () => {
    it('hold against bash, write and edit, and the hooks keep running the originals', { timeout: 90_000 }, async () => {
      const { ws, kernel, call } = await hookWorkspace({
        dirs, kernels, backend,
        files: { '.claude/settings.json': SETTINGS, ...SCRIPTS },
        prepare: (ws) => chmodSync(join(ws, '.hooks/pre.sh'), 0o755),
      })
      for (const word of WORDS) expect((await call('bash', { command: `echo ${word}` })).error?.code, word).toBe('DENIED')
      // the backends that keep protected paths read-only refuse the write itself; plain Landlock puts it back after
      const refuses = backend !== 'landlock'
      for (const file of Object.keys(SCRIPTS)) {
        for (const attack of ATTACKS(file)) {
          const result = await call('bash', { command: attack })
          expect(result.error?.code, attack + textOf(result)).toBeUndefined()
          if (refuses) expect(textOf(result), attack).not.toContain('PLANTED')
          expect(readFileSync(join(ws, file), 'utf8'), attack).toBe(SCRIPTS[file])
        }
        const w = await call('write', { file_path: file, content: NOOP })
        expect(w.isError, file).toBe(true)
        expect(textOf(w)).toMatch(/protected path/)
        const e = await call('edit', { file_path: file, old_string: 'exit 2', new_string: 'exit 0' })
        expect(e.isError, file).toBe(true)
        expect(readFileSync(join(ws, file), 'utf8')).toBe(SCRIPTS[file])
      }
      for (const word of WORDS) {
        const result = await call('bash', { command: `echo ${word}` })
        expect(result.error?.code, word).toBe('DENIED')
        expect(textOf(result)).toMatch(/blocked by (check\.sh|pre\.sh|guard\.mjs)/)
      }
      expect((await call('bash', { command: 'echo fine' })).error).toBeUndefined()
    })
  })
}

const first = BACKENDS.find((backend) => missing[backend] === undefined)
describe.skipIf(!first)('hook scripts follow the settings', () => {
  it('a script a reloaded hook names is protected from the next call on, one no hook names any more is not', async () => {
    const settings = (command: string) => JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } })
    const { ws, kernel, call } = await hookWorkspace({
      dirs, kernels, backend: first!, hooks: { watch: false },
      files: { '.claude/settings.json': settings('bash scripts/check.sh'), 'scripts/check.sh': SCRIPTS['scripts/check.sh'], 'scripts/next.sh': SCRIPTS['scripts/check.sh'] },
    })
    expect((await call('bash', { command: 'echo forbidden-one' })).error?.code).toBe('DENIED')
    // the person changes the settings (the file lies in .claude/, which no confined command can write)
    writeFileSync(join(ws, '.claude/settings.json'), settings('bash scripts/next.sh'))
    expect((await call('bash', { command: 'echo forbidden-one' })).error?.code).toBe('DENIED')
    await call('bash', { command: `printf '${NOOP}' > scripts/next.sh; printf '${NOOP}' > scripts/check.sh` })
    expect(readFileSync(join(ws, 'scripts/next.sh'), 'utf8')).toBe(SCRIPTS['scripts/check.sh'])
    expect(readFileSync(join(ws, 'scripts/check.sh'), 'utf8')).toBe(NOOP)
    expect((await call('bash', { command: 'echo forbidden-one' })).error?.code).toBe('DENIED')
  })
})
