/**
 * The shell parser that reads hook commands is loaded only once there are
 * hooks: a kernel whose settings hold none starts without it, and when the
 * person adds a hook, the script it names is protected before the next call
 * runs (the call waits for the parser). Its own file: each spec file is a
 * process of its own, so nothing else here has loaded the parser.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { shellParserLoaded } from '@dsh/claude-code-permissions'
import { LINUX_BACKENDS, unavailableLinuxBackends } from '../backends.js'
import { hookWorkspace } from '../hook-workspace.js'
import { kernelsDisposedAfterEach } from '../kernels.js'
import { tempDirs } from '../temp-dirs.js'

const missing = await unavailableLinuxBackends()
const backend = LINUX_BACKENDS.find((b) => missing[b] === undefined)
const dirs = tempDirs()
const kernels = kernelsDisposedAfterEach(dirs)

const SCRIPT = 'grep -q forbidden && { echo blocked by check.sh >&2; exit 2; }; exit 0\n'

describe.skipIf(!backend)('hook scripts, with the parser loaded on demand', () => {
  it('no hooks: no parser; a hook added later has its script protected from the next call on', async () => {
    const { ws, call } = await hookWorkspace({
      dirs, kernels, backend: backend!, hooks: { watch: false },
      files: { '.claude/settings.json': JSON.stringify({ permissions: {} }), 'scripts/check.sh': SCRIPT },
    })
    expect((await call('bash', { command: 'echo forbidden' })).error).toBeUndefined()
    expect(shellParserLoaded()).toBe(false)
    // the person adds a hook (the file lies in .claude/, which no confined command can write)
    writeFileSync(join(ws, '.claude/settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'bash scripts/check.sh' }] }] } }))
    await call('bash', { command: `printf 'exit 0\\n' > scripts/check.sh` })
    expect(shellParserLoaded()).toBe(true)
    expect(readFileSync(join(ws, 'scripts/check.sh'), 'utf8')).toBe(SCRIPT)
    expect((await call('bash', { command: 'echo forbidden' })).error?.code).toBe('DENIED')
  })
})
