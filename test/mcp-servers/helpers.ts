// Real kernels with mcp-servers loaded on the fixture servers (the official
// SDK's server, test/fixtures/mcp-servers), and ways to see their processes.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { afterEach } from 'vitest'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import type { ToolResult } from '@dsh/tools'
// the plugin's events (mcp-servers/exited, mcp-servers/skipped) on ctx.on
import type {} from '@dsh/mcp-servers'

/**
 * A server script a confined server can read. Every backend gives a confined process a /tmp of its
 * own, so from a checkout under /tmp (a CI clone, say) a confined server finds neither its script nor
 * the packages it imports. There the script is bundled with its packages into one file under the
 * user's cache, which confined processes read like the rest of the home directory; elsewhere it runs
 * where it lies, unmodified.
 */
export function reachableScript(script: string): string {
  const real = fs.realpathSync(script)
  if (path.relative('/tmp', real).startsWith('..')) return script
  const dir = path.join(os.homedir(), '.cache', 'dsh-test-servers', createHash('sha256').update(real).digest('hex').slice(0, 16))
  const out = path.join(dir, path.basename(script))
  const built = buildSync({
    entryPoints: [real], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, outfile: out, logLevel: 'error',
    // packages written as CommonJS (Ajv) call require; an ES module has none of its own
    banner: { js: "import { createRequire as dshCreateRequire } from 'node:module'; const require = dshCreateRequire(import.meta.url);" },
  })
  fs.mkdirSync(dir, { recursive: true })
  // written beside and renamed: spec files in other workers may build and start the same script at once
  const partial = `${out}.${process.pid}.partial`
  fs.writeFileSync(partial, built.outputFiles[0].contents)
  fs.renameSync(partial, out)
  return out
}

const fixtures = fileURLToPath(new URL('../fixtures/mcp-servers/', import.meta.url))
export const FIXTURE = reachableScript(path.join(fixtures, 'fixture-server.mjs'))
export const RAW = reachableScript(path.join(fixtures, 'raw-server.mjs'))

/** A stdio server config running `script` with this node. */
export function nodeServer(script: string, extra: Record<string, unknown> = {}, args: string[] = []): Record<string, unknown> {
  return { command: process.execPath, args: [script, ...args], ...extra }
}

export const fixtureServer = (extra: Record<string, unknown> = {}) => nodeServer(FIXTURE, extra)

export interface Options {
  servers?: Record<string, unknown>
  config?: Record<string, unknown>
  plugins?: Record<string, unknown>
  sandbox?: Record<string, unknown>
  approval?: Record<string, unknown>
}

const running = new Set<TestKernel>()
const outside: string[] = []

/** After every test, what it started and did not stop is stopped, then its outside directories removed (registered once per spec file that imports this). */
afterEach(async () => {
  for (const k of [...running]) await stop(k)
  for (const dir of outside.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** A fresh directory (its real path) under `parent`, outside every kernel's workspace; removed after the test, once its kernels stopped. */
export function outsideDir(parent: string, prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, prefix)))
  outside.push(dir)
  return dir
}

/** A test kernel with mcp-servers configured by `options`; stopped after the test unless the test stops it. */
export async function kernelWith(options: Options): Promise<TestKernel> {
  const k = await createTestKernel({
    ...(options.approval ? { approval: options.approval as any } : {}),
    sandbox: { ...options.sandbox },
    plugins: { ...options.plugins, 'mcp-servers': { servers: options.servers ?? {}, restartBackoffMs: 50, ...options.config } },
  })
  running.add(k)
  return k
}

export const text = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('')

/** pids of live processes whose command line holds `needle` */
export function processesWith(needle: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      // a zombie is gone for every purpose but its parent's wait
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue
      if (cmdline.includes(needle)) found.push(Number(entry))
    } catch {}
  }
  return found
}

/** pids of live processes started for a kernel whose workspace is `dir` (a server and its launcher have HOME=dir) */
export function serverPids(dir: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue
      if (fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HOME=${dir}`)) found.push(Number(entry))
    } catch {}
  }
  return found
}

/** Stop the kernel, wait (bounded) for its servers' processes to go, then remove its directory; says whether they went. */
export async function stop(k: TestKernel): Promise<boolean> {
  running.delete(k)
  await k.dispose()
  const gone = await eventually(() => serverPids(k.dir).length === 0)
  await k.cleanup()
  return gone
}

/** Wait (bounded) until `check` holds; returns whether it did. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 8000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return check()
}

export function toolNames(k: TestKernel): string[] {
  return k.ctx.tools.schemas().map((s: { name: string }) => s.name).filter((n: string) => n.startsWith('mcp__')).sort()
}
