/**
 * Which files a hook command runs from disk (hook-scripts.ts): the program
 * written as a path, the script of a known interpreter, through wrappers and
 * `sh -c`, with `$CLAUDE_PROJECT_DIR` expanded — and what cannot be known.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadShellParser } from '@dsh/claude-code-permissions'
import { hookScripts } from '@dsh/hooks-claude-code'
import { tempDirs } from '../temp-dirs.js'

const dirs = tempDirs()
beforeAll(() => loadShellParser())

function workspace(): string {
  const ws = dirs.make('dsh-hook-scripts-')
  for (const dir of ['scripts', '.hooks', 'tools']) mkdirSync(join(ws, dir))
  for (const file of ['scripts/check.sh', '.hooks/pre.sh', 'tools/guard.mjs', 'tools/g.py']) writeFileSync(join(ws, file), '')
  return ws
}

describe('hookScripts', () => {
  it('finds the program written as a path and the script of each known interpreter', () => {
    const ws = workspace()
    const { files, unknown } = hookScripts([
      './.hooks/pre.sh --strict',
      'bash -e scripts/check.sh arg',
      'node --no-warnings tools/guard.mjs',
      'env FOO=1 nice python3 -u "$CLAUDE_PROJECT_DIR"/tools/g.py',
    ], ws)
    expect(files).toEqual([join(ws, '.hooks/pre.sh'), join(ws, 'scripts/check.sh'), join(ws, 'tools/g.py'), join(ws, 'tools/guard.mjs')])
    expect(unknown).toEqual([])
  })

  it('reads inside sh -c and lists, and takes ${CLAUDE_PROJECT_DIR} and absolute paths', () => {
    const ws = workspace()
    const { files } = hookScripts([`jq -r .tool_input.command | sh -c 'source scripts/check.sh && \${CLAUDE_PROJECT_DIR}/.hooks/pre.sh'`, `${ws}/tools/guard.mjs`], ws)
    expect(files).toEqual([join(ws, '.hooks/pre.sh'), join(ws, 'scripts/check.sh'), join(ws, 'tools/guard.mjs')])
  })

  it('registers a script that is not there yet (a confined command must not plant it)', () => {
    const ws = workspace()
    expect(hookScripts(['bash .hooks/missing.sh'], ws).files).toEqual([join(ws, '.hooks/missing.sh')])
  })

  it('leaves programs looked up on PATH, inline code and directories alone', () => {
    const ws = workspace()
    const { files, unknown } = hookScripts(['jq -e .x', 'node -e "process.exit(0)"', 'python3 -c "print(1)"', 'bash -c "exit 0"', 'grep -q rm'], ws)
    expect(files).toEqual([])
    expect(unknown).toEqual([])
    expect(hookScripts(['./scripts'], ws).files).toEqual([])
  })

  it('says what is chosen when the hook runs', () => {
    const ws = workspace()
    const { files, unknown } = hookScripts(['$HOOK_BIN', 'bash "$(pick)"', 'python3 -m guard', 'cd tools && ./guard.mjs', 'if then'], ws)
    expect(files).toEqual([])
    expect(unknown).toHaveLength(5)
    expect(unknown[0]).toMatch(/^"\$HOOK_BIN": its program is chosen when it runs/)
    expect(unknown[3]).toMatch(/a directory it changes to/)
    expect(unknown[4]).toMatch(/cannot be read/)
  })
})
