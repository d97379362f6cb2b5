// The wall time of one headless turn of each real client, with dsh as its tool layer against the
// same turn without dsh, in the same run (medians of 5, interleaved): a turn that answers at once,
// and a turn with one `echo` through the shell tool (dsh's bash, or the client's own). With dsh,
// twice: in a fresh HOME and project each turn (`cold`: dsh's first start there), and in one HOME
// and project kept across the turns after an unmeasured first one (`warm`: a user's next turn, dsh
// answering from the start-up snapshot of its last start there). Needs the
// clients in ~/.cache/dsh-test-clients (the e2e tests install them) and the build.
//   node test/e2e/clients/turn-time.mjs
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { startModel } from '../../fixtures/model-server.mjs'

const ROOT = join(import.meta.dirname, '../../..')
const CLI = join(ROOT, 'core/dsh/bin/dsh.cjs')
const CACHE = process.env.DSH_TEST_CLIENTS ?? join(homedir(), '.cache', 'dsh-test-clients')
const BIN = { claude: join(CACHE, 'claude-code-2.1.332/node_modules/.bin/claude'), codex: join(CACHE, 'codex-0.171.0/node_modules/.bin/codex') }
const RUNS = Number(process.env.RUNS ?? 5)

function box() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-turn-')))
  mkdirSync(join(root, 'home'))
  mkdirSync(join(root, 'project'))
  return { root, home: join(root, 'home'), project: join(root, 'project') }
}

function run(bin, args, cwd, env) {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint()
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, code, out }))
  })
}

async function turn(client, withDsh, shell, kept) {
  const b = kept ?? box()
  const step = shell ? (withDsh ? { call: 'bash', input: { command: 'echo $((6*7))xyz' } } : client === 'claude' ? { tool: 'Bash', input: { command: 'echo $((6*7))xyz' } } : { tool: 'exec_command', input: { cmd: 'echo $((6*7))xyz' } }) : undefined
  const m = await startModel(step ? [step, { text: 'done' }] : [{ text: 'done' }])
  const env = { PATH: process.env.PATH, HOME: b.home, TMPDIR: process.env.TMPDIR ?? tmpdir(), LANG: 'C.UTF-8' }
  let args
  if (client === 'claude') {
    Object.assign(env, { ANTHROPIC_BASE_URL: m.url, ANTHROPIC_API_KEY: 'sk-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' })
    args = ['-p', 'go', '--output-format', 'json', ...(withDsh ? [] : ['--allowedTools', 'Bash'])]
  } else {
    mkdirSync(join(b.home, '.codex'), { recursive: true })
    writeFileSync(join(b.home, '.codex/config.toml'), `model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${m.url}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n`)
    env.STANDIN_KEY = 'sk-stand-in'
    // without dsh, Codex's own shell unconfined: its sandbox helper cannot be installed under /tmp here
    args = ['exec', '--skip-git-repo-check', ...(withDsh ? [] : ['-s', 'danger-full-access']), 'go']
  }
  if (withDsh) spawnSync(process.execPath, [CLI, 'setup', client === 'claude' ? 'claude-code' : 'codex'], { cwd: b.project, env })
  const r = await run(BIN[client], args, b.project, env)
  const ok = r.code === 0 && (!shell || JSON.stringify(m.requests).includes('42xyz'))
  await m.close()
  if (!kept) rmSync(b.root, { recursive: true, force: true })
  if (!ok) throw new Error(`${client} ${withDsh ? 'with' : 'without'} dsh failed (exit ${r.code}):\n${r.out.slice(-2000)}`)
  return r.ms
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

for (const client of ['claude', 'codex']) {
  for (const shell of [false, true]) {
    const times = { with: [], warm: [], without: [] }
    const kept = box()
    await turn(client, true, shell, kept)
    for (let i = 0; i < RUNS; i++) {
      times.without.push(await turn(client, false, shell))
      times.with.push(await turn(client, true, shell))
      times.warm.push(await turn(client, true, shell, kept))
    }
    rmSync(kept.root, { recursive: true, force: true })
    const wo = median(times.without)
    const list = (xs) => xs.map((t) => t.toFixed(0)).join(' ')
    for (const [label, xs] of [['cold', times.with], ['warm', times.warm]]) {
      const w = median(xs)
      console.log(`${client.padEnd(6)} ${shell ? 'one echo' : 'answer  '}  without dsh ${wo.toFixed(0).padStart(5)} ms  with dsh (${label}) ${w.toFixed(0).padStart(5)} ms  dsh's share ${(w - wo).toFixed(0).padStart(5)} ms  (medians of ${RUNS}; with: ${list(xs)}; without: ${list(times.without)})`)
    }
  }
}
