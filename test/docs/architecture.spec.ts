/**
 * The claims of docs/architecture.md a test can check against the tree: the package map names
 * packages that exist; each folder map (core/dsh/src, core/sandbox/src) lists every folder of its
 * package and only those, and the files it names stand in the folder it names them under; every
 * path and file name it quotes exists (build outputs aside); every event name it quotes is a
 * string some source emits or listens to. A move that leaves the document behind fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')

const SKIP = new Set(['node_modules', 'lib', 'dist', '.git'])
function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path, out)
    else out.push(path.slice(root.length + 1))
  }
  return out
}
const tree = ['core', 'plugins', 'adapters', 'libs', 'native', 'docs', 'test', 'bench'].flatMap((top) => walk(join(root, top)))
const names = new Set(tree.map((file) => basename(file)))

/** The fenced blocks of the document, in order. */
const blocks = [...doc.matchAll(/^```\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
/** The backquoted spans of the prose. */
const quoted = [...new Set([...doc.replace(/^```\n[\s\S]*?^```$/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim()))]

/** What the document quotes that a build makes (dist/, lib/, the launcher's per-platform copy), not the checkout. */
const BUILT = /^(?:core\/dsh\/)?(?:dist|lib)\/|^native\/(?:<platform>|manifest\.json)|\$XDG_CACHE_HOME/

describe('docs/architecture.md', () => {
  it('the package map names packages that exist', () => {
    const map = blocks.find((b) => b.startsWith('core/kernel'))!
    const named = map.split('\n').map((line) => line.split(/\s{2,}/)[0]!).flatMap((cell) => cell.split(/,\s*/)).filter(Boolean)
    expect(named.length).toBeGreaterThan(10)
    const missing = named.filter((name) => name.endsWith('/*') ? !existsSync(join(root, name.slice(0, -2))) : !existsSync(join(root, name, 'package.json')))
    expect(missing).toEqual([])
  })

  it.each(['core/dsh/src', 'core/sandbox/src'])('the folder map of %s lists its folders, and its files stand where it says', (src) => {
    const at = doc.indexOf(`\`${src}\`, by folder:`)
    expect(at).toBeGreaterThan(-1)
    const map = blocks.find((b) => doc.indexOf(b) > at)!
    const rows: Array<{ folder: string; text: string }> = []
    for (const line of map.split('\n')) {
      const head = /^(\S+\/)\s/.exec(line)
      if (head) rows.push({ folder: head[1]!.slice(0, -1), text: line })
      else if (/^\S/.test(line)) rows.push({ folder: '', text: line })
      else if (rows.length) rows[rows.length - 1]!.text += `\n${line}`
    }
    const folders = rows.map((r) => r.folder).filter(Boolean)
    const actual = readdirSync(join(root, src), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
    expect(folders.sort()).toEqual(actual.sort())
    const misplaced: string[] = []
    for (const { folder, text } of rows) {
      // a file named in a row lies in that row's folder, or in a folder below it (cli/mcp/…)
      for (const [file] of text.matchAll(/\b[\w-]+\.ts\b/g)) {
        if (file.startsWith('-')) continue
        const dir = join(root, src, folder)
        const found = existsSync(join(dir, file)) || (readdirSync(dir, { recursive: true }) as string[]).some((f) => basename(f) === file)
        if (!found) misplaced.push(`${folder || '.'}/${file}`)
      }
    }
    expect(misplaced).toEqual([])
  })

  it('every path and file name it quotes exists', () => {
    const missing: string[] = []
    for (const span of quoted) {
      if (/\s/.test(span) || BUILT.test(span) || span.includes('*') || span.includes('…')) continue
      // a step's table names a module beside its folder as ../name.ts
      const path = span.replace(/\/$/, '').replace(/^(?:\.\.\/)+/, '')
      if (/^(?:core|plugins|adapters|libs|native|docs|test|bench)\//.test(path)) {
        const brace = /^(.*)\/\{(.*)\}$/.exec(path)
        const paths = brace ? brace[2]!.split(',').map((part) => `${brace[1]}/${part}`) : [path]
        for (const p of paths) if (!existsSync(join(root, p))) missing.push(p)
      } else if (/^[\w.-]+(?:\/[\w.-]+)*\.(?:ts|js|mjs|cjs|c|h|md)$/.test(path)) {
        // a name relative to its package's src/ (cli/mcp/run.ts) or a bare file name (kernel.ts)
        if (path.includes('/') ? !tree.some((f) => f.endsWith(`/${path}`)) : !names.has(path)) missing.push(path)
      }
    }
    expect(missing).toEqual([])
  })

  it('every event name it quotes is one the code emits or listens to', () => {
    const sources = tree.filter((f) => /^(?:core|plugins|adapters|libs)\/[^/]+\/src\/.*\.(?:ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    const code = sources.map((f) => readFileSync(join(root, f), 'utf8')).join('\n')
    // MCP methods the SDK sends for us: the protocol's names, not ours
    const PROTOCOL = new Set(['elicitation/create', 'logging/setLevel'])
    const events = quoted.filter((span) => /^[a-z][\w-]*\/[a-z][\w/-]*[a-z]$/.test(span) && !/^(?:core|plugins|adapters|libs|native|docs|test|bench|cli|dist|lib|src)\//.test(span) && !/\.\w+$/.test(span))
    expect(events.length).toBeGreaterThan(20)
    const said = (name: string) => ["'", '"', '`'].some((q) => code.includes(`${q}${name}${q}`))
    const unknown = events.filter((name) => !PROTOCOL.has(name) && !said(name))
    expect(unknown).toEqual([])
  })

  it('cordis-internals is reached by the core packages only: no plugin or adapter imports @dsh/kernel/internals', () => {
    const outside = tree.filter((f) => /^(?:plugins|adapters)\/[^/]+\/src\/.*\.ts$/.test(f) && readFileSync(join(root, f), 'utf8').includes("'@dsh/kernel/internals'"))
    expect(outside).toEqual([])
    const entries = ['core/dsh/src/index.ts', 'core/dsh/src/testing.ts'].filter((f) => readFileSync(join(root, f), 'utf8').includes('internals'))
    expect(entries).toEqual([])
  })

  it('its folder maps and paths are checked against a tree that has them', () => {
    expect(statSync(join(root, 'core/dsh/src/cli')).isDirectory()).toBe(true)
    expect(quoted.length).toBeGreaterThan(200)
  })
})
