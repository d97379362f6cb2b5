/**
 * The session log holds every tool result, secrets included: a data
 * directory dsh creates gets a `.gitignore` of `*`, so `git add .` leaves the
 * logs out; one that already exists is left as its owner made it.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createKernel } from 'dsh'
import { kernelsDisposedAfterEach } from '../kernels.js'
import { tempDirs } from '../temp-dirs.js'

const dirs = tempDirs()
const kernels = kernelsDisposedAfterEach(dirs)

async function openIn(ws: string): Promise<void> {
  const kernel = await createKernel({ dataDir: join(ws, '.dsh'), sandbox: { mode: 'read-only', workspace: ws }, plugins: {} })
  kernels.push(kernel)
  await kernel.openSession().append('turn/begin', { turn: 1 })
}

describe('the data directory and git', () => {
  it('a .dsh dsh creates holds a .gitignore of *, and git leaves the logs out', async () => {
    const ws = dirs.make('dsh-gitignore-')
    execFileSync('git', ['init', '-q'], { cwd: ws })
    await openIn(ws)
    expect(readFileSync(join(ws, '.dsh/.gitignore'), 'utf8')).toMatch(/^\*$/m)
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ws, encoding: 'utf8' })).toBe('')
  })

  it('twin: a .dsh that already exists gets none, and git shows it', async () => {
    const ws = dirs.make('dsh-gitignore-')
    execFileSync('git', ['init', '-q'], { cwd: ws })
    mkdirSync(join(ws, '.dsh'))
    await openIn(ws)
    expect(existsSync(join(ws, '.dsh/.gitignore'))).toBe(false)
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ws, encoding: 'utf8' })).toMatch(/\.dsh\/sessions\//)
  })
})
