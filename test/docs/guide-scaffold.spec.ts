// docs/plugins.md §2 shows the package `dsh new-plugin` writes: every fenced block marked
// `<!-- scaffold: <file> -->` must be, as parsed JSON, that file as the scaffold writes it today
// (for the names of `dsh-plugin-greet`, with `<dsh>` and `<cordis>` for the paths of the dsh that
// wrote it and its cordis). §7 names every export of `dsh/testing`.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
// the scaffold's modules are private to dsh: read here on purpose, to compare the guide with them
import { scaffoldFiles } from '../../core/dsh/src/scaffold/files.js'
import { pluginNames } from '../../core/dsh/src/scaffold/names.js'
import { scaffoldVersions } from '../../core/dsh/src/scaffold/write.js'
import * as testing from 'dsh/testing'

const root = join(import.meta.dirname, '../..')
const guide = readFileSync(join(root, 'docs/plugins.md'), 'utf8')

/** The body of each fenced block marked `<!-- scaffold: <file> -->`, by file. */
function scaffoldBlocks(text: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const match of text.matchAll(/^<!-- scaffold: (\S+) -->\n```\w*\n([\s\S]*?)\n```$/gm)) found.set(match[1], match[2])
  return found
}

/** A section of the guide: from its `## N.` heading to the next. */
function section(number: number): string {
  const start = guide.indexOf(`\n## ${number}. `)
  const end = guide.indexOf('\n## ', start + 1)
  if (start < 0) throw new Error(`docs/plugins.md has no section ${number}`)
  return guide.slice(start, end < 0 ? undefined : end)
}

describe('docs/plugins.md and the scaffold', () => {
  const versions = { ...scaffoldVersions(pathToFileURL(join(root, 'core/dsh/package.json'))), dshDir: '<dsh>', cordisDir: '<cordis>' }
  const files = scaffoldFiles(pluginNames('/somewhere/dsh-plugin-greet'), versions)
  const blocks = scaffoldBlocks(section(2))

  it('shows the package.json and tsconfig.json the scaffold writes', () => {
    expect([...blocks.keys()].sort()).toEqual(['package.json', 'tsconfig.json'])
    for (const [file, body] of blocks) {
      expect(files[file], `the scaffold writes no ${file}`).toBeDefined()
      expect(JSON.parse(body), `docs/plugins.md's ${file}`).toEqual(JSON.parse(files[file]))
    }
  })

  it('names the entry the dsh.yml it writes loads, and the test runner its package.json runs', () => {
    const entry = /^ {2}(\.\/\S+):$/m.exec(files['dsh.yml'])?.[1]
    expect(entry).toBe('./lib/src/index.js')
    expect(section(2)).toContain(`\`${entry!.slice(2)}\``)
    const test = JSON.parse(files['package.json']).scripts.test as string
    expect(test).toMatch(/node --test/)
    expect(section(2)).toContain('`node:test`')
  })

  it('documents every export of dsh/testing in §7', () => {
    const text = section(7)
    const missing = Object.keys(testing).filter((name) => !text.includes(`\`${name}(`))
    expect(missing).toEqual([])
  })
})
