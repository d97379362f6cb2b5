/**
 * The bench's own files import modules of the packages by relative path (bench/*.js and its
 * helpers): each such import names a module that exists, so a move inside a package cannot leave
 * `npm run bench` failing at a suite's start while every test passes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const bench = join(root, 'bench')
const SPECIFIER = /\b(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** A compiled module (lib/…js) is there once built; before the build its source (src/…ts) stands for it. */
function present(file: string): boolean {
  return existsSync(file) || existsSync(file.replace(/\/lib\//, '/src/').replace(/\.js$/, '.ts'))
}

const files = (readdirSync(bench, { recursive: true }) as string[]).filter((name) => /\.(js|mjs)$/.test(name) && !name.includes('node_modules')).sort()

describe('bench imports', () => {
  it('has bench files to check', () => {
    expect(files.length).toBeGreaterThan(5)
  })
  it.each(files)('%s imports only modules that exist', (name) => {
    const text = readFileSync(join(bench, name), 'utf8')
    const missing = [...text.matchAll(SPECIFIER)].map((m) => m[1]).filter((specifier) => !present(resolve(dirname(join(bench, name)), specifier)))
    expect(missing).toEqual([])
  })
})
