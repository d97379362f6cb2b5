/**
 * Each line of the skip manifests (.ci/skips-*.txt) names a test that still exists: its spec file
 * is there and the line ends with a title (a string literal) in that spec or in a module it imports. A
 * test renamed in a suite that skips without bwrap therefore fails here, in every pass, instead of
 * failing CI's without-bwrap pass only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const manifests = readdirSync(join(root, '.ci')).filter((name) => /^skips-.*\.txt$/.test(name)).sort()
// every string literal of 12 characters or more: a test's title, however its it() is modified (skipIf(…), each)
const LITERAL = /(['"`])((?:\\.|(?!\1)[^\\\n]){12,})\1/g
const IMPORT = /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** A title as a pattern: escapes unescaped, each `${…}` of a template matching anything. */
function pattern(raw: string): RegExp {
  const parts = raw.split(/\$\{[^}]*\}/).map((part) => part.replace(/\\(.)/g, '$1').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`${parts.join('.*')}$`)
}

/** The titles of a spec and of the local modules it imports, transitively. */
function titles(file: string, seen = new Set<string>()): RegExp[] {
  if (seen.has(file) || !existsSync(file)) return []
  seen.add(file)
  const text = readFileSync(file, 'utf8')
  const own = [...text.matchAll(LITERAL)].map((m) => pattern(m[2]))
  const imported = [...text.matchAll(IMPORT)].flatMap((m) => titles(resolve(dirname(file), m[1].replace(/\.js$/, '.ts')), seen))
  return [...own, ...imported]
}

describe('skip manifests', () => {
  it('there are manifests for both passes', () => {
    expect(manifests).toEqual(['skips-with-bwrap.txt', 'skips-without-bwrap.txt'])
  })

  it.each(manifests)('every line of .ci/%s names a test that exists', (manifest) => {
    const lines = readFileSync(join(root, '.ci', manifest), 'utf8').split('\n').filter((line) => line !== '')
    const cache = new Map<string, RegExp[]>()
    const stale = lines.filter((line) => {
      const [file, ...rest] = line.split(' > ')
      const name = rest.join(' > ')
      if (!cache.has(file)) cache.set(file, titles(join(root, file)))
      return !cache.get(file)!.some((title) => title.test(name))
    })
    expect(stale).toEqual([])
  })

  it.each(manifests)('.ci/%s is sorted and has no repeated line', (manifest) => {
    const lines = readFileSync(join(root, '.ci', manifest), 'utf8').split('\n').filter((line) => line !== '')
    expect(lines).toEqual([...new Set(lines)].sort())
  })
})
