/**
 * Part of the build (scripts/build-bundle.js): the V8 code cache of dist/cli.cjs, written beside
 * it after training runs that do what a user's first commands do — `dsh mcp` answering initialize
 * and tools/list, then `dsh exec ls` — each in a process of its own that runs the script as
 * dist/start.cjs does (with the cache the runs before it left) and, as it exits, writes the cache
 * of every function compiled by then (lazy ones included: they ran). One cache for both, so either
 * command finds its code in it.
 *
 * Run as a script (`node bundle-train.js <dist/cli.cjs> <command> [args...]`), it is one such run.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cacheOf, runVendored } from './vendor-load.js'

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dsh-build', version: '1' } } }
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }
const TIMEOUT_MS = 120_000

/** One training run of `args` in `cwd`; `answer` replies to each line the CLI writes (JSON-RPC over stdio), ending stdin when it returns null. */
function trainingRun(file, args, cwd, answer, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), file, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '', ...env } })
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS)
    let stderr = ''
    let buffered = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdout.on('data', (chunk) => {
      if (!answer) return
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()
      for (const line of lines) {
        const reply = answer(JSON.parse(line))
        if (reply === null) child.stdin.end()
        else if (reply) child.stdin.write(reply)
      }
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`the code cache's training run \`dsh ${args.join(' ')}\` ended with ${signal ?? `exit code ${code}`}: ${stderr}`))
    })
    if (answer) child.stdin.write(`${JSON.stringify(INIT)}\n`)
    else child.stdin.end()
  })
}

/** Writes `<file>.cache` from the training runs (the build's side). */
export async function trainCache(file) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bundle-train-'))
  try {
    // dsh mcp where there is no dsh.yml: the default set
    const bare = join(dir, 'bare')
    const configured = join(dir, 'configured')
    mkdirSync(bare)
    mkdirSync(configured)
    const mcp = (message) => {
      if (message.id === 1) return `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify(LIST)}\n`
      if (message.id === 2) {
        if (!Array.isArray(message.result?.tools)) throw new Error(`the training run of dsh mcp answered tools/list with ${JSON.stringify(message)}`)
        return null
      }
      return undefined
    }
    // twice, with a start-up snapshot of their own (not the user's): the first start in a
    // directory, then the next one, which answers from the snapshot the first left (cli/mcp/first-answer.ts)
    const cache = { XDG_CACHE_HOME: join(dir, 'cache') }
    await trainingRun(file, ['mcp'], bare, mcp, cache)
    await trainingRun(file, ['mcp'], bare, mcp, cache)
    const config = join(configured, 'dsh.yml')
    writeFileSync(config, `dataDir: ${join(configured, '.dsh')}\nsandbox:\n  workspace: ${configured}\nplugins:\n  workspace-tools:\n    workspace: ${configured}\n`)
    await trainingRun(file, ['exec', 'ls', JSON.stringify({ path: configured }), '--config', config], configured, undefined, cache)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// one training run: the script run as dist/start.cjs runs it, its cache written as the process exits
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, ...args] = process.argv.slice(2)
  process.argv = [process.argv[0], join(dirname(file), '..', 'bin', 'dsh.cjs'), ...args]
  const { script, source } = runVendored(file)
  process.on('exit', () => writeFileSync(`${file}.cache`, cacheOf(script, source, file)))
}
