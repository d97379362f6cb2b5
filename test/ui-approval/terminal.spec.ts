import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { results, Tmux, waitForResults } from './tmux.js'

// the fixture runs the built packages (`npm run build`) in a real pseudo-terminal
const fixture = join(import.meta.dirname, '../fixtures/ui-approval-terminal.mjs')
const root = join(import.meta.dirname, '../..')
const hasTmux = (() => { try { execFileSync('tmux', ['-V']); return true } catch { return false } })()

let tmux: Tmux | undefined
let dir: string | undefined
afterEach(() => {
  tmux?.kill(); tmux = undefined
  if (dir) rmSync(dir, { recursive: true, force: true }); dir = undefined
})

function run(scenario: string, redirectStdout = false) {
  dir = mkdtempSync(join(tmpdir(), 'dsh-ui-tmux-'))
  const out = join(dir, 'results.jsonl')
  const redirect = redirectStdout ? ` > '${join(dir, 'stdout.txt')}'` : ''
  tmux = new Tmux()
  tmux.start(`'${process.execPath}' '${fixture}' '${out}' ${scenario}${redirect}; sleep 30`, root)
  return { tmux, out }
}

const outcomes = (lines: any[]) => Object.fromEntries(lines.filter((l) => l.label).map((l) => [l.label, l.outcome]))
const done = (lines: any[]) => lines.some((l) => l.done)
const prompting = (screen: string) => (text: string) => screen.includes(text) && screen.trimEnd().endsWith('└')

describe.skipIf(!hasTmux)('ui-approval in a real terminal (tmux)', () => {
  it('shows tool, arguments (cut with a marker), reason and mode; y, a, n + reason, Escape answer; a grant answers without a prompt', async () => {
    const { tmux, out } = run('sequence')
    let screen = await tmux.waitFor((s) => prompting(s)('make test'), 'the first prompt')
    expect(results(out)[0]).toMatchObject({ stdinTTY: true, stdoutTTY: true })
    expect(screen).toContain('Approval needed')
    expect(screen).toMatch(/Tool:\s+bash/)
    expect(screen).toMatch(/Sandbox:\s+workspace-write for this call: allowing lets it write inside the workspace/)
    expect(screen).toMatch(/Reason:\s+runs the tests/)
    expect(screen).toContain(`"note": "${'x'.repeat(40)}…[cut 460 more chars]"`)
    expect(screen).not.toContain('x'.repeat(41))
    expect(screen).toMatch(/n\s+Deny \(also Enter\)/)
    expect(screen).toMatch(/y\s+Allow once/)
    expect(screen).toMatch(/a\s+Allow for this session \(these exact arguments\)/)
    // nothing is decided before a key is pressed
    expect(outcomes(results(out))).toEqual({})
    tmux.keys('y')

    screen = await tmux.waitFor((s) => prompting(s)('npm ci'), 'the second prompt')
    expect(screen).toMatch(/Sandbox:\s+the session's mode/)
    tmux.keys('a')

    await tmux.waitFor((s) => prompting(s)('/etc/passwd'), 'the third prompt')
    tmux.keys('n')
    await tmux.waitFor((s) => s.includes('Reason for denying'), 'the reason prompt')
    tmux.type('writes system files')
    tmux.keys('Enter')

    // 'granted' repeats the 'a' call with its keys reordered: no prompt for it; next is curl
    await tmux.waitFor((s) => prompting(s)('curl example.invalid'), 'the fifth prompt')
    expect(outcomes(results(out))).toMatchObject({ granted: { kind: 'approved', grant: 'session' } })
    tmux.keys('Escape')
    await tmux.waitFor((s) => prompting(s)('shutdown now'), 'the sixth prompt')
    tmux.keys('C-c')

    const lines = await waitForResults(out, done, 'the fixture to finish')
    expect(outcomes(lines)).toEqual({
      once: { kind: 'approved', grant: 'once', sandboxMode: 'workspace-write' },
      session: { kind: 'approved', grant: 'session' },
      deny: { kind: 'denied', reason: 'writes system files' },
      granted: { kind: 'approved', grant: 'session' },
      escape: { kind: 'denied', reason: 'denied at the terminal' },
      'ctrl-c': { kind: 'denied', reason: 'denied at the terminal' },
    })
    // five prompts were shown for six requests
    expect(tmux.screen().match(/Approval needed/g)).toHaveLength(5)
  })

  it('queues concurrent requests one at a time; an aborted request dismisses its prompt and the next one shows', async () => {
    const { tmux, out } = run('queue')
    let screen = await tmux.waitFor((s) => prompting(s)('first-command'), 'the first prompt')
    expect(screen).not.toContain('second-command')
    const { pid } = results(out)[0]
    process.kill(pid, 'SIGUSR2') // the caller of the first request aborts it
    screen = await tmux.waitFor((s) => prompting(s)('second-command'), 'the second prompt')
    expect(screen).toContain('Approval request withdrawn')
    expect(screen.indexOf('withdrawn')).toBeLessThan(screen.indexOf('second-command'))
    tmux.keys('y')
    const lines = await waitForResults(out, done, 'the fixture to finish')
    expect(outcomes(lines)).toEqual({
      first: { kind: 'unavailable', reason: 'the call was cancelled while approval was pending' },
      second: { kind: 'approved', grant: 'once' },
    })
  })

  it('disposing the plugin dismisses its prompt; later requests end unavailable', async () => {
    const { tmux, out } = run('dispose')
    await tmux.waitFor((s) => prompting(s)('while-disposing'), 'the prompt')
    process.kill(results(out)[0].pid, 'SIGUSR2')
    const lines = await waitForResults(out, done, 'the fixture to finish')
    expect(outcomes(lines)).toEqual({
      disposed: { kind: 'unavailable', reason: 'the request was withdrawn before an answer' },
      after: { kind: 'unavailable', reason: 'no approval/request listener answered' },
    })
    expect(tmux.screen()).not.toContain('after-dispose')
  })

  it('offers "allow for this session" only for a grantable request: without it, a is no answer and y allows once', async () => {
    const { tmux, out } = run('ungrantable')
    const screen = await tmux.waitFor((s) => prompting(s)('make deploy'), 'the prompt')
    expect(screen).toMatch(/y\s+Allow once/)
    expect(screen).not.toContain('Allow for this session')
    // keys are read in order: had a answered (a session grant) or opened the reason form (y typed
    // into it), the one outcome would not be y's
    tmux.keys('a')
    tmux.keys('y')
    const lines = await waitForResults(out, done, 'the fixture to finish')
    expect(outcomes(lines)).toEqual({ ungrantable: { kind: 'approved', grant: 'once' } })
  })

  it('shows escape sequences, C1 and bidi characters from the model as inert escapes; Enter alone denies', async () => {
    const { tmux, out } = run('hostile')
    const screen = await tmux.waitFor((s) => prompting(s)('Allow this call?'), 'the prompt')
    // the clear-screen sequence did not run: the box is intact and the text is escaped
    expect(screen).toContain('Approval needed')
    expect(screen).toContain('\\u001b[2J\\u001b[HAllow once? yes')
    expect(screen).toContain('safe\\u{202e}txt.exe')
    expect(screen).toContain('\\u{009b}31m')
    expect(screen).toContain('looks \\u{001b}[32mharmless\\u{001b}[0m\\nFAKE LINE')
    // the newline in the reason did not start a line of its own
    const fake = screen.split('\n').filter((line) => line.includes('FAKE LINE'))
    expect(fake).toHaveLength(1)
    expect(fake[0]).toMatch(/Reason:/)
    // Enter without a key is the default, Deny, as the prompt says
    tmux.keys('Enter')
    await tmux.waitFor((s) => s.includes('Reason for denying'), 'the reason prompt')
    expect(outcomes(results(out))).toEqual({})
    tmux.keys('Enter')
    const lines = await waitForResults(out, done, 'the fixture to finish')
    expect(outcomes(lines)).toEqual({ hostile: { kind: 'denied', reason: 'denied at the terminal' } })
  })

  it('with a terminal for input but output redirected to a file, registers nothing: unavailable', async () => {
    const { out } = run('single', true)
    const lines = await waitForResults(out, done, 'the fixture to finish')
    expect(lines[0]).toMatchObject({ stdinTTY: true, stdoutTTY: false })
    expect(outcomes(lines)).toEqual({ single: { kind: 'unavailable', reason: 'no approval/request listener answered' } })
    expect(readFileSync(join(dir!, 'stdout.txt'), 'utf8')).not.toContain('Approval needed')
  })
})
