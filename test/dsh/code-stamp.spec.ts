/**
 * The code-reload stamp: a tree whose files' stat signatures are unchanged is
 * not read again (and the plugin not re-imported); a same-size rewrite whose
 * mtime is put back is still a change (its ctime moved); a signature change
 * with the same contents is none; a file stamped right after a write is read
 * again next time (a second write within the same tick would not move its
 * signature). The files are real, on the test machine's filesystem.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createKernel, type Kernel } from 'dsh'
// the code check of a reload is private to dsh: tested here on purpose
import { CodeScan } from '../../core/dsh/src/reload/code/scan.js'
import { restamp } from '../../core/dsh/src/reload/code/stamp.js'
import { changedCode, pluginCode } from '../../core/dsh/src/reload/code/plugin-code.js'

// past the stamp's racy window (100 ms) after a file's last change
const SETTLE_MS = 250
// a whole second not near now (whole seconds only so utimes can put it back exactly)
const OLD_MTIME = 1_700_000_000

let dir: string
let kernel: Kernel | undefined

beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-code-stamp-')) })
afterEach(async () => {
  await kernel?.dispose()
  kernel = undefined
  rmSync(dir, { recursive: true, force: true })
})

const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

it('an unchanged tree is stamped by stat alone: no file read, no change', async () => {
  const files = [file('a.mjs', 'export const a = 1\n'), file('b.mjs', 'export const b = 2\n')]
  await sleep(SETTLE_MS)
  const first = restamp(files, new CodeScan())
  expect(first.changed).toBe(true)
  const scan = new CodeScan()
  const again = restamp(files, scan, first.stamp)
  expect(again.changed).toBe(false)
  expect(scan.hashed).toBe(0)
})

it('a same-size rewrite with its mtime put back (utimes) is a change: the ctime moved', async () => {
  const path = file('a.mjs', 'export const a = 1\n')
  utimesSync(path, OLD_MTIME, OLD_MTIME)
  await sleep(SETTLE_MS)
  const before = statSync(path, { bigint: true })
  const first = restamp([path], new CodeScan())
  writeFileSync(path, 'export const a = 2\n')
  utimesSync(path, OLD_MTIME, OLD_MTIME)
  const after = statSync(path, { bigint: true })
  // the rewrite is invisible to size and mtime
  expect(after.size).toBe(before.size)
  expect(after.mtimeNs).toBe(before.mtimeNs)
  expect(after.ino).toBe(before.ino)
  const scan = new CodeScan()
  expect(restamp([path], scan, first.stamp).changed).toBe(true)
  expect(scan.hashed).toBe(1)
})

it('a changed signature with the same contents (touch) is no change; a file added or removed is one', async () => {
  const a = file('a.mjs', 'export const a = 1\n')
  await sleep(SETTLE_MS)
  const first = restamp([a], new CodeScan())
  utimesSync(a, OLD_MTIME, OLD_MTIME)
  const scan = new CodeScan()
  const touched = restamp([a], scan, first.stamp)
  expect(touched.changed).toBe(false)
  expect(scan.hashed).toBe(1)
  const b = file('b.mjs', 'export const b = 1\n')
  expect(restamp([a, b], new CodeScan(), touched.stamp).changed).toBe(true)
  expect(restamp([], new CodeScan(), touched.stamp).changed).toBe(true)
  rmSync(a)
  expect(restamp([a], new CodeScan(), touched.stamp).changed).toBe(true)
})

it('a file stamped right after a write is read again next time, until its signature has settled', async () => {
  const path = file('a.mjs', 'export const a = 1\n')
  const first = restamp([path], new CodeScan())
  expect(first.stamp.get(path)!.racy).toBe(true)
  const soon = new CodeScan()
  const next = restamp([path], soon, first.stamp)
  expect(next.changed).toBe(false)
  expect(soon.hashed).toBe(1)
  await sleep(SETTLE_MS)
  const settledLook = restamp([path], new CodeScan(), next.stamp)
  expect(settledLook.stamp.get(path)!.racy).toBe(false)
  const later = new CodeScan()
  expect(restamp([path], later, settledLook.stamp).changed).toBe(false)
  expect(later.hashed).toBe(0)
})

it('kernel.reload(): an unchanged plugin tree is not imported again; a same-size rewrite with its mtime put back is', async () => {
  mkdirSync(join(dir, 'plugin'))
  const counter = `dshStampImports${Date.now()}`
  const entry = (answer: string) => file('plugin/index.mjs', `globalThis.${counter} = (globalThis.${counter} ?? 0) + 1
export const name = 'stamped'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'probe', description: 'which code runs', parameters: { type: 'object' }, execute: () => ${JSON.stringify(answer)} })
}
`)
  const path = entry('one')
  file('plugin/helper.mjs', 'export const helper = 1\n')
  utimesSync(path, OLD_MTIME, OLD_MTIME)
  const yml = file('dsh.yml', 'plugins:\n  ./plugin/index.mjs: {}\n')
  kernel = await createKernel({ configFile: yml, dataDir: join(dir, '.dsh') })
  const session = kernel.openSession({ id: 's' })
  session.beginTurn()
  let n = 0
  const probe = async () => (await kernel!.execute({ callId: `c${++n}`, name: 'probe', arguments: {}, session })).content.map((b: any) => b.text).join('')
  const imports = () => (globalThis as any)[counter] as number
  const module = kernel.plugins()[0]!.plugin
  expect(await probe()).toBe('one')
  expect(imports()).toBe(1)
  await sleep(SETTLE_MS)
  for (let i = 0; i < 3; i++) {
    expect(await kernel.reload()).toMatchObject({ changed: [], unchanged: ['./plugin/index.mjs'] })
  }
  expect(imports()).toBe(1)
  expect(kernel.plugins()[0]!.plugin).toBe(module)
  entry('two')
  utimesSync(path, OLD_MTIME, OLD_MTIME)
  expect(await kernel.reload()).toMatchObject({ changed: ['./plugin/index.mjs'] })
  expect(imports()).toBe(2)
  expect(await probe()).toBe('two')
})

it('plugins in one directory share one walk and one stamp per reload: each file stat-ed and hashed once', async () => {
  mkdirSync(join(dir, 'plugins'))
  const entries = ['a', 'b', 'c'].map((name) => file(`plugins/${name}.mjs`, `export const name = '${name}'\n`))
  const scan = new CodeScan()
  const codes = entries.map((entry) => pluginCode(entry, tmpdir(), scan)!)
  expect(scan.hashed).toBe(3)
  expect(codes[1]!.stamp).toBe(codes[0]!.stamp)
  expect(codes[0]!.tree.files).toEqual([...entries].sort())
  await sleep(SETTLE_MS)
  writeFileSync(entries[2]!, `export const name = 'C'\n`)
  const again = new CodeScan()
  const changed = codes.map((code) => changedCode(code, again))
  expect(changed.every(Boolean)).toBe(true)
  expect(again.hashed).toBe(3)
})

it('a plugin directory is walked again only when a directory in it changed: a file added below is seen', async () => {
  mkdirSync(join(dir, 'plugin', 'lib'), { recursive: true })
  const entry = file('plugin/index.mjs', 'export const name = "walked"\n')
  file('plugin/lib/a.mjs', 'export const a = 1\n')
  const first = new CodeScan()
  const code = pluginCode(entry, tmpdir(), first)!
  expect(first.walked).toBe(1)
  expect(code.tree.files).toHaveLength(2)
  // fresh directories are racy: walked again until their signatures settle
  const soon = new CodeScan(first.walks)
  expect(changedCode(code, soon)).toBeUndefined()
  expect(soon.walked).toBe(1)
  await sleep(SETTLE_MS)
  const settling = new CodeScan(soon.walks)
  changedCode(code, settling)
  const settled = new CodeScan(settling.walks)
  expect(changedCode(code, settled)).toBeUndefined()
  expect(settled.walked).toBe(0)
  expect(settled.hashed).toBe(0)
  // a file added two levels down moves only its own directory's mtime
  file('plugin/lib/b.mjs', 'export const b = 2\n')
  const added = new CodeScan(settled.walks)
  const next = changedCode(code, added)
  expect(added.walked).toBe(1)
  expect(next?.tree.files).toEqual([entry, join(dir, 'plugin/lib/a.mjs'), join(dir, 'plugin/lib/b.mjs')].sort())
})

it('a build\'s declaration files are not code: a .d.ts beside the entry is not in the tree, and its change reloads nothing', async () => {
  mkdirSync(join(dir, 'plugin'))
  const entry = file('plugin/index.js', 'export const name = "declared"\n')
  const declarations = ['index.d.ts', 'index.d.mts', 'index.d.cts'].map((name) => file(`plugin/${name}`, 'export declare const name = "declared"\n'))
  const script = file('plugin/types.ts', 'export const t = 1\n')
  const code = pluginCode(entry, tmpdir())!
  expect(code.tree.files).toEqual([entry, script])
  await sleep(SETTLE_MS)
  for (const path of declarations) writeFileSync(path, 'export declare const name: string\n')
  expect(changedCode(code, new CodeScan())).toBeUndefined()
  writeFileSync(entry, 'export const name = "changed"\n')
  expect(changedCode(code, new CodeScan())).toBeDefined()
})
