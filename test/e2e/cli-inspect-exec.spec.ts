/**
 * `dsh inspect` and `dsh exec` as real child processes (core/dsh/bin/dsh.cjs,
 * which runs the bundle `npm run build` made) on a sample dsh.yml in a temporary directory, with
 * stdin a pipe (not a terminal): output, session files and exit codes.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import type { RegistrySnapshot } from '@dsh/tool-cordis'
// the CLI's JSON argument parser is private to dsh: tested here on purpose
import { locateJsonError, parseJsonArgument } from '../../core/dsh/src/cli/json-argument.js'
import { Tmux } from '../ui-approval/tmux.js'
import { CLI, exitCodeIn, runCli, type Run } from './cli.js'
import { CACHE_HOME } from '../cache-home.js'

const root = join(import.meta.dirname, '../..')
const fixtures = join(root, 'test/fixtures')
const echo = `${fixtures}/plugins/echo-tool.mjs`
const deny = `${fixtures}/plugins/deny-pattern.mjs`
const asks = `${fixtures}/tool-cordis/asks.mjs`
const ordered = `${fixtures}/tool-cordis/ordered.mjs`

const SAMPLE = `
sandbox:
  mode: read-only
approval:
  policy: ask
plugins:
  ${echo}:
    prefix: "v1:"
  ${deny}:
    tool: echo
    pattern: "^rm "
  ${asks}: {}
  ${ordered}:
    label: first
    prepend: true
    apiToken: sk-do-not-print
  tool-cordis: {}
`

// stdin is a pipe: no terminal, so nobody can answer an approval request
const dsh = (args: string[], cwd: string): Promise<Run> => runCli(args, cwd)

const ESC = '\x1b'
const hasTmux = (() => { try { execFileSync('tmux', ['-V']); return true } catch { return false } })()
let dir: string

beforeAll(() => {
  // fail with the reason, not with a confusing output, when the CLI was not built
  for (const file of [CLI, join(root, 'plugins/tool-cordis/lib/index.js')]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npx tsc -b\` first`)
  }
  const src = statSync(join(root, 'core/dsh/src/cli/exec-command.ts')).mtimeMs
  if (statSync(join(root, 'core/dsh/lib/cli/exec-command.js')).mtimeMs < src) throw new Error('core/dsh/lib is older than its sources: run `npx tsc -b` first')
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-cli-'))
  writeFileSync(join(dir, 'dsh.yml'), SAMPLE)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const sessionFiles = () => {
  const sessions = join(dir, '.dsh/sessions')
  return existsSync(sessions) ? readdirSync(sessions) : []
}
const logOf = (id: string) => readFileSync(join(dir, '.dsh/sessions', `${id}.jsonl`), 'utf8').trim().split('\n').map((line) => JSON.parse(line))

describe('dsh inspect', () => {
  it('--json prints one JSON document of the registry built from ./dsh.yml', async () => {
    const run = await dsh(['inspect', '--json'], dir)
    expect(run.stderr).toBe(`dsh inspect: config ${join(dir, 'dsh.yml')}\n`)
    expect(run.code).toBe(0)
    const snap = JSON.parse(run.stdout) as RegistrySnapshot
    expect(snap.mode).toBe('native')
    expect(snap.tools.find((t) => t.name === 'echo')).toMatchObject({ owner: 'echo-tool', hasPrompt: true, concurrency: 'exclusive', visibility: { native: true, code: false, both: true } })
    expect(snap.tools.find((t) => t.name === 'cordis_inspect')).toMatchObject({ owner: 'tool-cordis', concurrency: 'parallel' })
    // ordered prepends its listener: it runs before echo-tool's although loaded after it
    expect(snap.listeners.find((g) => g.event === 'tools/pre-execute')!.listeners.map((l) => [l.owner, l.prepend])).toEqual([['ordered', true], ['echo-tool', false], ['asks', false]])
    expect(snap.guards.map((g) => g.owner)).toEqual(['deny-pattern', 'ordered'])
    expect(snap.prompt.find((s) => s.id === 'tool:echo')?.owner).toBe('echo-tool')
    expect(snap.approval).toMatchObject({ policy: 'ask', preset: null })
    const loaded = snap.plugins.filter((p) => p.source === 'config')
    expect(loaded.map((p) => [p.spec, p.name, p.status])).toEqual([
      [echo, 'echo-tool', 'active'], [deny, 'deny-pattern', 'active'], [asks, 'asks', 'active'], [ordered, 'ordered', 'active'], ['tool-cordis', 'tool-cordis', 'active'],
    ])
    expect(loaded[1].config).toEqual({ tool: 'echo', pattern: '^rm ' })
    expect(run.stdout).not.toContain('sk-do-not-print')
    // inspect probes the backends (the snapshot itself never does)
    for (const c of snap.sandbox!.candidates.filter((c) => c.runsHere)) expect(c.probe, c.name).not.toBeNull()
    expect(snap.sandbox!.chosen).toBe(snap.sandbox!.candidates.find((c) => c.runsHere && c.probe?.available)?.name ?? null)
    // nothing was called: no session was written
    expect(sessionFiles()).toEqual([])
  })

  it('--no-probe leaves the backends unprobed', async () => {
    const run = await dsh(['inspect', '--json', '--no-probe'], dir)
    expect(run.code).toBe(0)
    const snap = JSON.parse(run.stdout) as RegistrySnapshot
    expect(snap.sandbox!.chosen).toBeNull()
    expect(snap.sandbox!.candidates.every((c) => c.probe === null || !c.runsHere)).toBe(true)
  })

  it('prints a plain tree when stdout is not a terminal', async () => {
    const run = await dsh(['inspect', '--config', join(dir, 'dsh.yml')], tmpdir())
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain(ESC)
    expect(run.stdout).toMatch(/^dsh registry\n/)
    expect(run.stdout).toContain('echo [echo-tool]')
    expect(run.stdout).toMatch(/tools\/pre-execute waterfall\n.*1\. \[ordered\] orderedListener prepend\n.*2\. \[echo-tool\]/)
    expect(run.stdout).toMatch(/guards \(2\)/)
    expect(run.stdout).toContain(`deny-pattern ${deny} active`)
  })

  it('without a dsh.yml it inspects the built-in default set', async () => {
    rmSync(join(dir, 'dsh.yml'))
    const run = await dsh(['inspect', '--json', '--no-probe'], dir)
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('using the built-in default set')
    const snap = JSON.parse(run.stdout) as RegistrySnapshot
    expect(snap.plugins.filter((p) => p.source === 'config').map((p) => p.spec)).toEqual(['workspace-tools', 'timeout-policy', 'spill-policy', 'repeat-tool-reminder', 'hooks-claude-code', 'claude-code-permissions'])
    expect(snap.tools.map((t) => t.name)).not.toContain('echo')
  })

  it('--help prints the usage and exits 0', async () => {
    const run = await dsh(['inspect', '--help'], dir)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: dsh inspect')
    expect(run.stdout).toContain('--json')
  })

  it('bad usage and bad config exit 2 with a message naming the problem', async () => {
    const [flag, positional, missing] = await Promise.all([dsh(['inspect', '--jsn'], dir), dsh(['inspect', 'tools'], dir), dsh(['inspect', '--config', 'nope.yml'], dir)])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain("'--jsn'")
    expect(flag.stdout).toBe('')
    expect(positional.code).toBe(2)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(join(dir, 'nope.yml'))
    writeFileSync(join(dir, 'dsh.yml'), SAMPLE.replace('pattern: "^rm "', 'pattern: 42'))
    const invalid = await dsh(['inspect'], dir)
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toContain('deny-pattern.mjs')
    expect(invalid.stderr).toContain('pattern')
    writeFileSync(join(dir, 'dsh.yml'), 'plugins:\n  ./no-such-plugin.mjs: {}\n')
    const unloadable = await dsh(['inspect'], dir)
    expect(unloadable.code).toBe(2)
    expect(unloadable.stderr).toContain('no-such-plugin.mjs')
  })
})

describe('dsh exec', () => {
  it('runs one call, prints the result and its audit trail, exits 0', async () => {
    const run = await dsh(['exec', 'echo', '{"command":"hi"}', '--session', 'one'], dir)
    expect(run.stderr).toBe(`dsh exec: config ${join(dir, 'dsh.yml')}\n`)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^✓ echo\n {2}v1:hi\n/)
    expect(run.stdout).toContain('audit trail (session one:')
    expect(run.stdout).toMatch(/→ call {3}echo \{"command":"hi"\}/)
    expect(run.stdout).toMatch(/✓ result echo v1:hi/)
    const log = logOf('one')
    expect(log.filter((e) => e.type === 'tool/call').map((e) => e.data.name)).toEqual(['echo'])
    expect(log.find((e) => e.type === 'tool/result')?.data).toMatchObject({ isError: false, content: [{ type: 'text', text: 'v1:hi' }] })
  })

  it('an error result exits 1: a guard denial', async () => {
    const run = await dsh(['exec', 'echo', '{"command":"rm -rf /"}'], dir)
    expect(run.code).toBe(1)
    // who decided: the guard's plugin, the guard by its place among the plugin's guards
    expect(run.stdout).toMatch(/^✗ echo DENIED by guard #1 of plugin deny-pattern\n/)
    expect(run.stdout).toContain('matches ^rm ')
    expect(run.stdout).toMatch(/✗ result echo DENIED/)
    const json = await dsh(['exec', 'echo', '{"command":"rm -rf /"}', '--json', '--session', 'denied'], dir)
    expect(JSON.parse(json.stdout).result.error).toEqual({ code: 'DENIED', message: 'matches ^rm ', source: { kind: 'guard', plugin: 'deny-pattern', detail: '#1' } })
    expect(logOf('denied').find((e) => e.type === 'tool/result')?.data.error.source).toEqual({ kind: 'guard', plugin: 'deny-pattern', detail: '#1' })
  })

  it('dsh inspect --call explains a past call from the log: each step passed, who decided, with what guard; JSON too; an unknown call exits 2', async () => {
    const denied = await dsh(['exec', 'echo', '{"command":"rm -rf /"}', '--json', '--session', 'why'], dir)
    const { callId } = JSON.parse(denied.stdout).result
    const explained = await dsh(['inspect', '--call', callId, '--session', 'why'], dir)
    expect(explained.code, explained.stderr).toBe(0)
    expect(explained.stdout).toContain(`call ${callId} echo {"command":"rm -rf /"}\n`)
    expect(explained.stdout).toContain('✗ DENIED — decided by guard #1 of plugin deny-pattern: matches ^rm ')
    expect(explained.stdout).toMatch(/✓ prepare: passed\n {2}✓ pre-execute: passed\n {2}✗ guards: decided \(guard #1 of plugin deny-pattern\)\n {2}· approval: not reached/)
    // without --session every session is searched; --json gives the steps
    const json = await dsh(['inspect', '--call', callId, '--json'], dir)
    expect(json.code, json.stderr).toBe(0)
    const parsed = JSON.parse(json.stdout)
    expect(parsed).toMatchObject({ callId, name: 'echo', code: 'DENIED', source: { kind: 'guard', plugin: 'deny-pattern', detail: '#1' }, session: { id: 'why' } })
    expect(parsed.steps.map((s: any) => s.outcome)).toEqual(['passed', 'passed', 'decided', 'not reached', 'not reached', 'not reached', 'not reached'])
    // an ask nobody answered: the approval decided, with what the log says of it
    const asked = await dsh(['exec', 'needs_ok', '{}', '--json', '--session', 'why2'], dir)
    const askedId = JSON.parse(asked.stdout).result.callId
    const approval = await dsh(['inspect', '--call', askedId], dir)
    expect(approval.stdout).toMatch(/✗ approval: decided \(approval asked by the tools\/pre-execute listener of plugin asks\)\n {6}asked: the asks fixture asks\n {6}decided unavailable/)
    const none = await dsh(['inspect', '--call', 'no-such-call'], dir)
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('--call: no call "no-such-call" in any session in')
  })

  it('an unknown tool and arguments the schema refuses are error results too (exit 1, audited)', async () => {
    const [unknown, invalid] = await Promise.all([dsh(['exec', 'no_such_tool', '{}', '--session', 'u'], dir), dsh(['exec', 'echo', '{"command": 5}'], dir)])
    expect(unknown.code).toBe(1)
    expect(unknown.stdout).toContain('UNKNOWN_TOOL')
    expect(logOf('u').map((e) => e.type)).toContain('tool/call')
    expect(invalid.code).toBe(1)
    expect(invalid.stdout).toContain('INVALID_ARGS')
  })

  it('without a terminal nobody can answer an approval: denied, and the output says so', async () => {
    const run = await dsh(['exec', 'needs_ok', '{}', '--session', 'ask'], dir)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^✗ needs_ok APPROVAL_UNAVAILABLE by approval asked by the tools\/pre-execute listener of plugin asks\n/)
    expect(run.stdout).toContain('nobody could answer')
    expect(run.stdout).toContain('unavailable → denied')
    expect(run.stdout).not.toContain('approved and ran')
    expect(run.stdout).toContain('• approval/asked')
    expect(run.stdout).toContain('• approval/decided')
    const decided = logOf('ask').find((e) => e.type === 'approval/decided')
    expect(decided?.data.outcome.kind).toBe('unavailable')
  })

  it('the audit trail shows only this call; the session keeps every call', async () => {
    await dsh(['exec', 'echo', '{"command":"first"}', '--session', 'shared'], dir)
    const second = await dsh(['exec', 'echo', '{"command":"second"}', '--session', 'shared'], dir)
    expect(second.code).toBe(0)
    const trail = second.stdout.slice(second.stdout.indexOf('audit trail'))
    expect(trail).toContain('second')
    expect(trail).not.toContain('first')
    expect(logOf('shared').filter((e) => e.type === 'tool/call').map((e) => e.data.arguments.command)).toEqual(['first', 'second'])
  })

  it('--mode code collapses a direct native call to UNKNOWN_TOOL', async () => {
    const run = await dsh(['exec', 'echo', '{"command":"hi"}', '--mode', 'code'], dir)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('UNKNOWN_TOOL')
    expect(run.stdout).not.toContain('v1:hi')
  })

  it('cordis_inspect runs through the pipeline and --json prints one document', async () => {
    const run = await dsh(['exec', 'cordis_inspect', '{"section":"guards"}', '--json'], dir)
    expect(run.code).toBe(0)
    const doc = JSON.parse(run.stdout)
    expect(doc.result.value).toEqual({ guards: [{ order: 1, owner: 'deny-pattern', function: null, name: '#1' }, { order: 2, owner: 'ordered', function: 'orderedGuard', name: 'orderedGuard' }] })
    expect(doc.approver).toBe('none')
    expect(doc.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['tool/call', 'tool/result']))
  })

  it('arguments that are not JSON exit 2, say where, and run nothing', async () => {
    const run = await dsh(['exec', 'echo', '{"command": "hi",}'], dir)
    expect(run.code).toBe(2)
    const text = '{"command": "hi",}'
    const column = text.indexOf(',}') + 2
    expect(run.stderr).toContain(`not valid JSON: at line 1, column ${column}: expected a property name in double quotes, found "}"`)
    expect(run.stderr).toContain(`  ${text}\n  ${' '.repeat(column - 1)}^\n`)
    expect(run.stdout).toBe('')
    expect(sessionFiles()).toEqual([])
    const multi = await dsh(['exec', 'echo', '{\n  "command": tru\n}'], dir)
    expect(multi.code).toBe(2)
    expect(multi.stderr).toContain('at line 2, column 14: expected a value')
    const cut = await dsh(['exec', 'echo', '{"command": "hi"'], dir)
    expect(cut.code).toBe(2)
    expect(cut.stderr).toContain("expected ',' or '}', found the end of the input")
  })

  it('shows terminal escapes in a tool\'s output as text, never sends them to the terminal', async () => {
    const run = await dsh(['exec', 'echo', JSON.stringify({ command: '\x1b[2J\x1b]0;pwned\x07done' })], dir)
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain(ESC)
    expect(run.stdout).not.toContain('\x07')
    expect(run.stdout).toContain('v1:\\x1b[2J\\x1b]0;pwned\\x07done')
    // a hostile tool name too (it is audited and refused as unknown)
    const named = await dsh(['exec', '\x1b[2Jevil\x9b', '{}'], dir)
    expect(named.code).toBe(1)
    expect(named.stdout).toContain('UNKNOWN_TOOL')
    expect(named.stdout).not.toContain(ESC)
    expect(named.stdout).not.toContain('\x9b')
    expect(named.stdout).toContain('\\x1b[2Jevil\\x9b')
  })

  it('bad usage exits 2 with the reason', async () => {
    const cases: Array<[string[], string]> = [
      [['exec'], 'missing the tool name'],
      [['exec', 'echo', '{}', 'extra'], 'at most one JSON argument'],
      [['exec', 'echo', '--bogus'], "'--bogus'"],
      [['exec', 'echo', '--mode', 'turbo'], '--mode must be one of native, code, both'],
      [['exec', 'echo', '--mode'], '--mode'],
      [['exec', 'echo', '--config', 'missing.yml'], 'config file not found'],
      [['exec', 'echo', '{}', '--session', '../escape'], '--session'],
    ]
    const runs = await Promise.all(cases.map(([args]) => dsh(args, dir)))
    cases.forEach(([args, message], i) => {
      expect(runs[i].code, args.join(' ')).toBe(2)
      expect(runs[i].stderr, args.join(' ')).toContain(message)
    })
    expect(sessionFiles()).toEqual([])
  })

  it('--help prints the usage with the exit codes', async () => {
    const run = await dsh(['exec', '--help'], dir)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: dsh exec <tool>')
    expect(run.stdout).toMatch(/Exit codes: 0 .*; 1 /)
  })
})

it('dsh --help lists inspect and exec', async () => {
  const run = await dsh(['--help'], dir)
  expect(run.code).toBe(0)
  expect(run.stdout).toMatch(/\n {2}inspect +print the registry/)
  expect(run.stdout).toMatch(/\n {2}exec +run one tool call/)
})

describe('the JSON argument reader', () => {
  it('finds an error exactly when JSON.parse refuses (any text, and JSON with one character cut or changed)', () => {
    const agrees = (text: string) => {
      let parses = true
      try { JSON.parse(text) } catch { parses = false }
      expect(locateJsonError(text) === undefined, JSON.stringify(text)).toBe(parses)
    }
    fc.assert(fc.property(fc.string(), agrees), { numRuns: 2000 })
    fc.assert(fc.property(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', ' ', '0', '-', '\\', '\n'), (json, at, c) => {
      const i = json.length ? at % json.length : 0
      agrees(json.slice(0, i) + c + json.slice(i + 1))
      agrees(json.slice(0, i) + json.slice(i + 1))
    }), { numRuns: 3000 })
  })

  it('the message points at the first character that is not JSON', () => {
    const bad = parseJsonArgument('[1, 2 3]')
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.message).toContain("at line 1, column 7: expected ',' or ']', found \"3\"")
    expect(parseJsonArgument('{"a": [1, {"b": null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } })
  })
})

describe.skipIf(!hasTmux)('dsh exec on a terminal (tmux): ui-approval answers', () => {
  let tmux: Tmux | undefined
  afterEach(() => { tmux?.kill(); tmux = undefined })

  /** Run `dsh exec needs_ok` in a real pseudo-terminal; its exit code goes to a file. */
  async function ask() {
    tmux = new Tmux()
    const exit = join(dir, 'exit-code')
    tmux.start(`XDG_CACHE_HOME='${CACHE_HOME}' '${process.execPath}' '${CLI}' exec needs_ok '{}' --session tty; echo $? > '${exit}'; sleep 30`, dir)
    const screen = await tmux.waitFor((s) => s.includes('Approval needed') && s.trimEnd().endsWith('└'), 'the approval prompt')
    const code = () => exitCodeIn(exit, () => tmux!.screen())
    return { tmux, screen, code }
  }

  it('dsh inspect colours its tree on a terminal', async () => {
    tmux = new Tmux()
    tmux.start(`XDG_CACHE_HOME='${CACHE_HOME}' '${process.execPath}' '${CLI}' inspect --no-probe; sleep 30`, dir)
    await tmux.waitFor((s) => s.includes('└─ plugins ('), 'the tree')
    const coloured = execFileSync('tmux', ['-L', tmux.socket, 'capture-pane', '-p', '-e', '-t', 'ui', '-S', '-200'], { encoding: 'utf8' })
    expect(coloured).toMatch(/\x1b\[[0-9;]*m/)
    expect(coloured).toContain('echo-tool')
  })

  it('y approves: the call runs and exits 0', async () => {
    const { tmux, screen, code } = await ask()
    expect(screen).toMatch(/Tool:\s+needs_ok/)
    expect(screen).toMatch(/Reason:\s+the asks fixture asks/)
    tmux.keys('y')
    expect(await code()).toBe(0)
    expect(tmux.screen()).toContain('approved and ran')
    expect(logOf('tty').find((e) => e.type === 'approval/decided')?.data).toMatchObject({ outcome: { kind: 'approved', grant: 'once' }, by: 'listener' })
  })

  it('n with a reason denies: exit 1, and the body never ran', async () => {
    const { tmux, code } = await ask()
    tmux.keys('n')
    await tmux.waitFor((s) => s.includes('Reason for denying'), 'the reason prompt')
    tmux.type('not today')
    tmux.keys('Enter')
    expect(await code()).toBe(1)
    const screen = tmux.screen()
    expect(screen).toContain('✗ needs_ok DENIED')
    expect(screen).not.toContain('approved and ran')
    expect(screen).not.toContain('nobody could answer')
    expect(logOf('tty').find((e) => e.type === 'approval/decided')?.data.outcome).toMatchObject({ kind: 'denied', reason: expect.stringContaining('not today') })
  })
})
