/**
 * One client run against the stand-in model: a fresh HOME and a fresh project, `dsh setup` run
 * there as a user would, the client started headless with only the variables that point it at
 * the model, every request the client sent kept for the test to read.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll } from 'vitest'
import { CLI, runCli, type Run } from '../cli.ts'
import { assertBuilt } from '../mcp-helpers.ts'
import { installClient, type ClientName, type Installed } from './install.ts'

export { CLI }

export interface Step {
  call?: string
  tool?: string
  input?: object
  text?: string
}

export interface Recorded {
  method: string
  path: string
  body: any
  agent: boolean
}

export interface Model {
  url: string
  requests: Recorded[]
  agentRequests(): Recorded[]
  close(): Promise<void>
}

// a plain ES module, also run by hand and by turn-time.mjs (loaded by a path the type check does not follow)
const fixture: string = new URL('../../fixtures/model-server.mjs', import.meta.url).href
const { startModel } = (await import(fixture)) as { startModel: (script: Step[] | ((n: number, body: any) => Step)) => Promise<Model> }

/** what the tests made, for `clientSpec`'s clean-up */
const models = new Set<Model>()
const boxes = new Set<Sandbox>()

export async function model(script: Step[] | ((n: number, body: any) => Step)): Promise<Model> {
  const m = await startModel(script)
  models.add(m)
  return m
}

/**
 * The set-up of a spec of one real client: the client installed (pinned, outside the repository)
 * or why it cannot be, said once; the CLI checked built before the tests; every model and box a
 * test made closed and removed after it.
 */
export function clientSpec(name: ClientName, title: string): { installed: Installed | string; skip: boolean } {
  const installed = installClient(name)
  const skip = typeof installed === 'string'
  if (skip) console.log(`skipping the ${title} end-to-end tests: ${installed}`)
  beforeAll(() => assertBuilt())
  afterEach(async () => {
    for (const m of [...models]) {
      models.delete(m)
      await m.close()
    }
    for (const box of [...boxes]) box.remove()
  })
  return { installed, skip }
}

export class Sandbox {
  readonly root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-client-')))
  readonly home = join(this.root, 'home')
  readonly project = join(this.root, 'project')

  constructor(readonly client: Installed) {
    mkdirSync(this.home)
    mkdirSync(this.project)
    boxes.add(this)
  }

  /** The variables a run sees: nothing of the developer's own HOME or keys. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: `${this.client.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: this.home,
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      ...extra,
    }
  }

  write(relative: string, text: string, base = this.project): string {
    const path = join(base, relative)
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, text)
    return path
  }

  /** `dsh <args>` in the project, with this HOME. */
  dsh(args: string[], env: Record<string, string> = {}): Promise<Run> {
    return runCli(args, this.project, this.env(env))
  }

  remove(): void {
    boxes.delete(this)
    // a client that just quit may still be writing its state under HOME (Claude Code's .cache after
    // its terminal UI was killed): try again for up to 15 s, then let the error say what is left
    const until = Date.now() + 15_000
    for (;;) {
      try {
        return rmSync(this.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || Date.now() > until) throw error
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200)
      }
    }
  }
}

/** Run the client headless with `prompt`; resolves when it exits (bounded by `ms`). */
export function runClient(box: Sandbox, name: ClientName, m: Model, prompt: string, options: { args?: string[]; ms?: number } = {}): Promise<Run> {
  let args: string[]
  let env: Record<string, string>
  if (name === 'claude-code') {
    args = ['-p', prompt, '--output-format', 'json', ...(options.args ?? [])]
    env = box.env({ ANTHROPIC_BASE_URL: m.url, ANTHROPIC_API_KEY: 'sk-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' })
  } else {
    args = ['exec', '--skip-git-repo-check', ...(options.args ?? []), prompt]
    env = box.env({ STANDIN_KEY: 'sk-stand-in' })
  }
  return new Promise((resolve, reject) => {
    const child = spawn(box.client.bin, args, { cwd: box.project, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.ms ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Codex's provider pointing at the stand-in model, written before `dsh setup codex` runs (as a user's own config would be). */
export function codexProvider(box: Sandbox, m: Model, extra = ''): string {
  return box.write('.codex/config.toml', `model = "stand-in"\nmodel_provider = "standin"\n${extra}\n[model_providers.standin]\nname = "standin"\nbase_url = "${m.url}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n`, box.home)
}

/** The tool results the model was sent, in order, as text (either API's shape). */
export function toolResults(m: Model): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const r of m.agentRequests()) {
    if (Array.isArray(r.body?.messages)) {
      for (const msg of r.body.messages) {
        for (const block of Array.isArray(msg.content) ? msg.content : []) {
          if (block.type !== 'tool_result' || seen.has(block.tool_use_id)) continue
          seen.add(block.tool_use_id)
          out.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content))
        }
      }
    }
    if (Array.isArray(r.body?.input)) {
      for (const item of r.body.input) {
        if (item.type !== 'function_call_output' || seen.has(item.call_id)) continue
        seen.add(item.call_id)
        out.push(typeof item.output === 'string' ? item.output : JSON.stringify(item.output))
      }
    }
  }
  return out
}

/** The tool names the first agent request offered (Codex's namespaces joined with `__`). */
export function offered(m: Model): string[] {
  const first = m.agentRequests()[0]
  const names: string[] = []
  for (const t of first?.body?.tools ?? []) {
    if (t.type === 'namespace') for (const x of t.tools ?? []) names.push(`${t.name}__${x.name}`)
    else names.push(t.name ?? t.type)
  }
  return names
}
