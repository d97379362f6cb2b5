// mcp_servers.model_bytes: what the model is sent for N upstream servers × their M tools, native mode
// versus code mode, with the official reference servers' real tool lists (bench/reference-servers,
// installed there on first run). For each N (the servers added one by one), one kernel per mode with
// only mcp-servers loaded: the bytes of `dsh mcp`'s tools/list answer (wireSchemas as MCP tools) and
// of the system prompt the kernel assembles (initialize's instructions). The baseline, same run, is
// native mode; the note also gives the servers' own tools/list bytes (what a client connected to
// them directly is sent).
import { execFileSync } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createKernel } from 'dsh'
import { toMcpTool } from '../adapters/mcp/lib/tool-wire.js'
import { tempDir } from './lib.js'

const SERVERS_DIR = fileURLToPath(new URL('./reference-servers/', import.meta.url))
const MODULES = join(SERVERS_DIR, 'node_modules', '@modelcontextprotocol')

/** The reference servers in the order they are added; `args` may name the workspace. */
const REFERENCE = [
  { name: 'seqthink', pkg: 'server-sequential-thinking', args: () => [] },
  { name: 'memory', pkg: 'server-memory', args: () => [], env: (ws) => ({ MEMORY_FILE_PATH: join(ws, 'memory.jsonl') }) },
  { name: 'everything', pkg: 'server-everything', args: () => ['stdio'] },
  { name: 'fs', pkg: 'server-filesystem', args: (ws) => [ws] },
  { name: 'github', pkg: 'server-github', args: () => [] },
]

/** Install the bench's servers from their lock file once (npm ci); a failure is the suite's error row. */
function ensureInstalled() {
  if (REFERENCE.every((s) => existsSync(join(MODULES, s.pkg, 'package.json')))) return
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: SERVERS_DIR, stdio: ['ignore', 'ignore', 'pipe'] })
  } catch (error) {
    throw new Error(`the reference servers could not be installed in ${SERVERS_DIR} (npm ci): ${String(error.stderr ?? error.message).trim().slice(-300)}`)
  }
}

const script = (s) => join(MODULES, s.pkg, 'dist', 'index.js')
const bytes = (value) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value))

/** The server's own tools/list answer, as a client connected to it directly gets it. */
async function directList(s, workspace) {
  const client = new Client({ name: 'bench', version: '1' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [script(s), ...s.args(workspace)], env: { ...process.env, ...s.env?.(workspace) }, cwd: workspace, stderr: 'ignore' }))
  try {
    const listed = await client.listTools()
    return { tools: listed.tools.length, bytes: bytes({ tools: listed.tools }) }
  } finally {
    await client.close()
  }
}

/** What a kernel with these servers sends the model in `mode`. */
async function sent(servers, mode, workspace) {
  const config = Object.fromEntries(servers.map((s) => [s.name, { command: process.execPath, args: [script(s), ...s.args(workspace)], ...(s.env ? { env: s.env(workspace) } : {}), sandbox: { mode: 'workspace-write' } }]))
  const kernel = await createKernel({ dataDir: join(workspace, '.dsh'), tools: { mode }, sandbox: { workspace }, plugins: { 'mcp-servers': { servers: config, initializeTimeoutMs: 30_000 } } })
  try {
    const upstream = kernel.ctx.tools.schemas().filter((t) => t.name.startsWith('mcp__')).length
    const list = { tools: kernel.ctx.tools.wireSchemas().map(toMcpTool) }
    const prompt = await kernel.ctx.systemPrompt.assemble()
    return { upstream, list: bytes(list), prompt: bytes(prompt) }
  } finally {
    await kernel.dispose()
  }
}

export async function run() {
  ensureInstalled()
  const tmp = tempDir('dsh-bench-mcp-bytes-')
  try {
    const workspace = realpathSync(tmp.dir)
    const own = []
    for (const s of REFERENCE) own.push(await directList(s, workspace))
    const rows = []
    for (let n = 1; n <= REFERENCE.length; n++) {
      const servers = REFERENCE.slice(0, n)
      const native = await sent(servers, 'native', workspace)
      const code = await sent(servers, 'code', workspace)
      const m = own.slice(0, n).reduce((sum, o) => sum + o.tools, 0)
      const direct = own.slice(0, n).reduce((sum, o) => sum + o.bytes, 0)
      const total = (x) => x.list + x.prompt
      rows.push({
        name: `mcp_servers.model_bytes.n${n}_m${m}`,
        value: total(code),
        unit: 'B',
        baseline: { name: 'native mode', value: total(native), unit: 'B' },
        note: `${servers.map((s) => s.name).join('+')}, ${native.upstream} tools taken; native: tools/list ${native.list} + prompt ${native.prompt}; code: tools/list ${code.list} + prompt ${code.prompt}; the servers' own tools/list ${direct}; code/native ${(total(code) / total(native)).toFixed(2)}`,
      })
    }
    return rows
  } finally {
    tmp.remove()
  }
}
