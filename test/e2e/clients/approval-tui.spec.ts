/**
 * Approvals in the real terminal UIs (Claude Code and Codex in tmux, after `dsh setup`, driven by
 * the stand-in model): dsh asks for a `require_escalated` bash, and for a write under read-only
 * that a project rule (`ask: ["Edit(./x.txt)"]`) asks about; the test reads the screen — the
 * form's first line names the tool, the command or path and the mode — and answers with the keys
 * a person would press: accepting as shown writes the file exactly once; Esc, or choosing deny in
 * the form, writes nothing, and the model is told the call was denied.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { usePrivateTmpdir } from '../../private-tmpdir.ts'
import { Tmux } from '../../ui-approval/tmux.ts'
import { assertBuilt } from '../mcp-helpers.ts'
import { installClient, type ClientName, type Installed } from './install.ts'
import { codexProvider, model, Sandbox, toolResults, type Model } from './harness.ts'

usePrivateTmpdir('dsh-approval-tui-')

const hasTmux = (() => { try { execFileSync('tmux', ['-V']); return true } catch { return false } })()
if (!hasTmux) console.log('skipping the terminal approval tests: tmux is not installed')
const clients = { 'claude-code': installClient('claude-code'), codex: installClient('codex') }
for (const [name, got] of Object.entries(clients)) if (typeof got === 'string') console.log(`skipping the ${name} terminal approval tests: ${got}`)

interface Ask {
  step: { call: string; input: object }
  /** the form's first line */
  first: string
  /** project files written before the client starts */
  files?: Record<string, string>
}

const ESCALATED: Ask = {
  step: { call: 'bash', input: { command: 'echo approved >> x.txt', sandbox_permissions: 'require_escalated', description: 'append a line' } },
  first: 'Allow bash with sandbox mode workspace-write: echo approved >> x.txt',
}
// a write under read-only (the session's mode) that asks: the project's rule asks before x.txt is edited
const WRITE: Ask = {
  step: { call: 'write', input: { file_path: 'x.txt', content: 'written\n' } },
  first: 'Allow write with sandbox mode workspace-write: x.txt',
  files: { '.claude/settings.json': JSON.stringify({ permissions: { ask: ['Edit(./x.txt)'] } }) },
}
let FIRST_LINE = ESCALATED.first

let box: Sandbox | undefined
let m: Model | undefined
let tmux: Tmux | undefined
beforeAll(() => assertBuilt())
afterEach(async () => {
  tmux?.kill()
  tmux = undefined
  await m?.close()
  m = undefined
  box?.remove()
  box = undefined
})

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

async function start(name: ClientName, ask: Ask = ESCALATED): Promise<void> {
  box = new Sandbox(clients[name] as Installed)
  FIRST_LINE = ask.first
  for (const [file, text] of Object.entries(ask.files ?? {})) box.write(file, text)
  m = await model([ask.step, { text: 'finished' }])
  let env: Record<string, string>
  let program: string
  if (name === 'claude-code') {
    // a user who has been through Claude Code's first-run screens, approved this API key and
    // answered its trust dialog for the project (headless runs show setup needs no trust: claude-code.spec.ts)
    box.write('.claude.json', JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: ['sk-stand-in'.slice(-20)], rejected: [] }, projects: { [box.project]: { hasTrustDialogAccepted: true } } }), box.home)
    env = box.env({ ANTHROPIC_BASE_URL: m.url, ANTHROPIC_API_KEY: 'sk-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' })
    program = 'claude'
  } else {
    codexProvider(box, m)
    env = box.env({ STANDIN_KEY: 'sk-stand-in' })
    program = 'codex'
  }
  expect((await box.dsh(['setup', name])).code).toBe(0)
  tmux = new Tmux()
  const vars = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`).join(' ')
  tmux.start(`env -i ${vars} ${quote((clients[name] as Installed).bin)}; sleep 600`, box.project)
  await tmux.waitFor((s) => /auto mode|for shortcuts/.test(s), `${name} to start`, 30_000)
  tmux.type('append a line to x.txt')
  await tmux.waitFor((s) => s.includes('append a line to x.txt'), 'the prompt text')
  // Enter until the client takes the prompt (a UI still settling can drop the first one)
  for (let i = 0; ; i++) {
    tmux.keys('Enter')
    try {
      await tmux.waitFor((s) => s.includes(FIRST_LINE), 'dsh\'s approval form', 6_000)
      break
    } catch (error) {
      if (i >= 3) throw error
    }
  }
  // Codex drops keys sent while its form is first drawn (a lost Esc, or Enter, left the form deaf
  // for 15 s in CI): the form is proven to take keys, cursor down and back, before a test's own key
  if (name === 'codex') {
    await pressUntil('Down', (s) => /› 2\. allow for this session/.test(s), 'the second choice')
    await pressUntil('Up', (s) => /› 1\. allow once/.test(s), 'the first choice again')
  }
}

async function answered(): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 30_000
    const poll = () => (toolResults(m!).length > 0 ? resolve() : Date.now() > deadline ? reject(new Error(`the model never got the result; the screen:\n${tmux!.screen()}`)) : setTimeout(poll, 50))
    poll()
  })
  return toolResults(m!)[0]!
}

/** The pane as it is now (no scrollback, which can hold frames a UI has since redrawn). */
function visible(): string {
  try {
    return execFileSync('tmux', ['-L', tmux!.socket, 'capture-pane', '-p', '-J', '-t', 'ui'], { encoding: 'utf8' })
  } catch {
    return ''
  }
}

/** Press `key` until the visible pane passes `test` (a key pressed while the UI redraws can be lost). */
async function pressUntil(key: string, test: (screen: string) => boolean, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    tmux!.keys(key)
    const deadline = Date.now() + 3_000
    while (Date.now() < deadline) {
      if (test(visible())) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    if (i >= 4) throw new Error(`timed out waiting for ${what}; the screen:\n${visible()}`)
  }
}

/** The processes working under `dir` whose command line passes `test`. */
function processesIn(dir: string, test: (cmdline: string) => boolean): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`)
      if (cwd !== dir && !cwd.startsWith(`${dir}/`)) continue
      if (test(readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) pids.push(Number(entry))
    } catch {}
  }
  return pids
}

/** The dsh mcp processes serving `project`. */
const dshServers = (project: string) => processesIn(project, (cmd) => /dsh\.cjs\0mcp/.test(cmd))

/** Quit the client as a person would, and wait for dsh mcp to end with its session. */
async function quitEndsDsh(command: string): Promise<void> {
  expect(dshServers(box!.project)).toHaveLength(1)
  tmux!.type(command)
  await tmux!.waitFor((s) => s.includes(command), 'the quit command')
  tmux!.keys('Enter')
  const deadline = Date.now() + 20_000
  while (dshServers(box!.project).length > 0) {
    if (Date.now() > deadline) throw new Error(`dsh mcp still runs after ${command}; the screen:\n${tmux!.screen()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // and the client itself (it writes its state under HOME as it exits): only the pane's sleep is left
  while (processesIn(box!.root, (cmd) => !cmd.startsWith('sleep\0')).length > 0) {
    if (Date.now() > deadline) throw new Error(`the client still runs after ${command}; the screen:\n${tmux!.screen()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.skipIf(!hasTmux)('approving in the terminal UIs', { timeout: 150_000 }, () => {
  it.skipIf(typeof clients['claude-code'] === 'string')('Claude Code: the form says what is asked in its first lines; Enter, Enter allows, and the write happens once', async () => {
    await start('claude-code')
    const screen = tmux!.screen()
    // the first three lines are what Claude Code shows before "+N more lines"
    expect(screen).toContain(FIRST_LINE)
    expect(screen).toMatch(/Decision: ▸ allow once/)
    await pressUntil('Enter', (s) => /❯ Accept/.test(s) || !s.includes(FIRST_LINE), 'the Accept button')
    if (visible().includes(FIRST_LINE)) await pressUntil('Enter', (s) => !s.includes(FIRST_LINE), 'the form to close')
    const result = await answered()
    expect(result).toContain('"exitCode":0')
    expect(readFileSync(join(box!.project, 'x.txt'), 'utf8')).toBe('approved\n')
    await tmux!.waitFor((s) => s.includes('finished'), 'the end of the turn')
    await quitEndsDsh('/exit')
  })

  it.skipIf(typeof clients['claude-code'] === 'string')('Claude Code: a write under read-only that asks; Enter, Enter allows, and the file is written once', async () => {
    await start('claude-code', WRITE)
    expect(tmux!.screen()).toMatch(/Why dsh asks: the permission rule Edit\(\.\/x\.txt\)/)
    expect(tmux!.screen()).toMatch(/Decision: ▸ allow once/)
    await pressUntil('Enter', (s) => /❯ Accept/.test(s) || !s.includes(FIRST_LINE), 'the Accept button')
    if (visible().includes(FIRST_LINE)) await pressUntil('Enter', (s) => !s.includes(FIRST_LINE), 'the form to close')
    const result = await answered()
    expect(result).toContain('"created":true')
    await tmux!.waitFor((s) => s.includes('finished'), 'the end of the turn')
    expect(readFileSync(join(box!.project, 'x.txt'), 'utf8')).toBe('written\n')
    expect(toolResults(m!)).toHaveLength(1)
  })

  it.skipIf(typeof clients['claude-code'] === 'string')('Claude Code: choosing deny in the form (not Esc) denies, nothing is written, and the model is told', async () => {
    await start('claude-code', WRITE)
    // → opens the decision's list, ↓ to deny, Enter picks it (the focus moves to Accept), Enter sends the form
    await pressUntil('Right', (s) => /◯ deny/.test(s), 'the list of decisions')
    await pressUntil('Down', (s) => /❯ ◯ deny/.test(s), 'deny under the cursor')
    await pressUntil('Enter', (s) => /Decision: deny/.test(s), 'deny chosen')
    expect(visible()).toMatch(/❯ Accept/)
    await pressUntil('Enter', (s) => !s.includes(FIRST_LINE), 'the form to close')
    const result = await answered()
    expect(result).toMatch(/denied through the MCP client/)
    await tmux!.waitFor((s) => s.includes('finished'), 'the end of the turn')
    expect(existsSync(join(box!.project, 'x.txt'))).toBe(false)
  })

  it.skipIf(typeof clients['claude-code'] === 'string')('Claude Code: Esc denies, and nothing is written', async () => {
    await start('claude-code')
    // pressed again while the form still shows: a key sent as the form is first drawn can be lost
    await pressUntil('Escape', (s) => !s.includes(FIRST_LINE), 'the form to close')
    const result = await answered()
    expect(result).toMatch(/denied|dismissed|declined/)
    expect(existsSync(join(box!.project, 'x.txt'))).toBe(false)
  })

  it.skipIf(typeof clients.codex === 'string')('Codex: the form shows the first line and "allow once" selected; Enter allows, and the write happens once', async () => {
    await start('codex')
    expect(tmux!.screen()).toMatch(/› 1\. allow once/)
    await pressUntil('Enter', (s) => !s.includes('enter to submit'), 'the form to close')
    const result = await answered()
    expect(result).toMatch(/exit code 0|"exitCode":0/)
    expect(readFileSync(join(box!.project, 'x.txt'), 'utf8')).toBe('approved\n')
    await tmux!.waitFor((s) => s.includes('finished'), 'the end of the turn')
    // with daemon_auto_start = false (setup) the session, and dsh mcp, end with the terminal UI
    await quitEndsDsh('/quit')
  })

  it.skipIf(typeof clients.codex === 'string')('Codex: a write under read-only that asks; Enter allows, and the file is written once', async () => {
    await start('codex', WRITE)
    expect(tmux!.screen()).toMatch(/Why dsh asks: the permission rule Edit\(\.\/x\.txt\)/)
    expect(tmux!.screen()).toMatch(/› 1\. allow once/)
    await pressUntil('Enter', (s) => !s.includes('enter to submit'), 'the form to close')
    const result = await answered()
    expect(result).toContain('created')
    await tmux!.waitFor((s) => s.includes('finished'), 'the end of the turn')
    expect(readFileSync(join(box!.project, 'x.txt'), 'utf8')).toBe('written\n')
    expect(toolResults(m!)).toHaveLength(1)
  })

  it.skipIf(typeof clients.codex === 'string')('Codex: choosing deny in the form (not Esc) denies, nothing is written, and the model is told', async () => {
    await start('codex', WRITE)
    await pressUntil('Down', (s) => /› 2\. allow for this session/.test(s), 'the second choice')
    await pressUntil('Down', (s) => /› 3\. deny/.test(s), 'deny under the cursor')
    await pressUntil('Enter', (s) => !s.includes('enter to submit'), 'the form to close')
    const result = await answered()
    expect(result).toMatch(/denied through the MCP client/)
    await tmux!.waitFor((s) => s.includes('finished'), 'the end of the turn')
    expect(existsSync(join(box!.project, 'x.txt'))).toBe(false)
  })

  it.skipIf(typeof clients.codex === 'string')('Codex: Esc denies, and nothing is written', async () => {
    await start('codex')
    await pressUntil('Escape', (s) => !s.includes('esc to cancel'), 'the form to close')
    const result = await answered()
    expect(result).toMatch(/denied|dismissed|declined|cancel/i)
    expect(existsSync(join(box!.project, 'x.txt'))).toBe(false)
  })
})
