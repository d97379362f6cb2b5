/**
 * What a plugin author or host can import (DESIGN §16.4): `dsh` and `dsh/testing`
 * export the names the design page fixes and nothing of cordis's internals, and
 * the bundled plugins and adapters are written against what a third party has —
 * no import of `@dsh/kernel/internals`, no `raw()` of a cordis traceable.
 *
 * cordis's internals are what `@dsh/kernel/internals` exports (the one door to
 * them, cordis-internals.ts), read from the module itself so the list cannot go
 * stale when a helper is added there.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as dsh from 'dsh'
import * as testing from 'dsh/testing'
import * as internals from '@dsh/kernel/internals'
import * as kernel from '@dsh/kernel'

const repo = fileURLToPath(new URL('../..', import.meta.url))

/** The runtime names DESIGN.md fixes for each entry point (types have no runtime trace to list). */
const DESIGN_NAMES = {
  dsh: ['createKernel', 'KernelError', 'loadPlugin', 'ApprovalService', 'SandboxService'],
  'dsh/testing': ['createTestKernel', 'testTool', 'answerApprovals', 'loadPlugin'],
} as const

/** The names cordis-internals.ts exports, besides the ones the kernel also offers publicly as plain data. */
const cordisInternals = Object.keys(internals).filter((name) => !Object.hasOwn(kernel, name))

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (/\.(ts|js|mjs)$/.test(name)) out.push(path)
  }
  return out
}

/** Every source file of the bundled plugins and the adapters. */
const thirdPartySources = ['plugins', 'adapters'].flatMap((top) => readdirSync(join(repo, top))
  .map((pkg) => join(repo, top, pkg, 'src'))
  .filter((src) => { try { return statSync(src).isDirectory() } catch { return false } })
  .flatMap(sources))

describe('public exports', () => {
  it('the internals module is not empty (the comparisons below would pass vacuously)', () => {
    expect(cordisInternals).toEqual(expect.arrayContaining(['raw', 'hookTable', 'exposeService', 'detachServiceContext', 'unwrapListener']))
  })

  it.each([['dsh', dsh], ['dsh/testing', testing]] as const)('%s exports the names of DESIGN.md', (entry, module) => {
    expect(Object.keys(module)).toEqual(expect.arrayContaining([...DESIGN_NAMES[entry]]))
  })

  it.each([['dsh', dsh], ['dsh/testing', testing], ['@dsh/kernel', kernel]] as const)('%s exports nothing of cordis\'s internals', (_entry, module) => {
    expect(Object.keys(module).filter((name) => cordisInternals.includes(name))).toEqual([])
  })

  it('dsh/testing exports only its helpers', () => {
    expect(Object.keys(testing).sort()).toEqual([...DESIGN_NAMES['dsh/testing']].sort())
  })

  it('the bundled plugins and adapters import nothing of cordis\'s internals', () => {
    expect(thirdPartySources.length).toBeGreaterThan(20)
    const offending: string[] = []
    const names = new RegExp(`\\b(${cordisInternals.join('|')})\\b`)
    for (const file of thirdPartySources) {
      const text = readFileSync(file, 'utf8')
      const where = relative(repo, file)
      if (text.includes('@dsh/kernel/internals')) offending.push(`${where}: imports @dsh/kernel/internals`)
      for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(@dsh\/[^']+|dsh(?:\/testing)?)'/g)) {
        const used = match[1].split(',').map((item) => item.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0].trim()).filter((item) => names.test(item) && cordisInternals.includes(item))
        if (used.length) offending.push(`${where}: imports ${used.join(', ')} from ${match[2]}`)
      }
    }
    expect(offending).toEqual([])
  })
})
