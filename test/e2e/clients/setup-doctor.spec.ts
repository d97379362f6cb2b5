/**
 * `dsh setup` and `dsh doctor` on real files in a fresh HOME and project (the built CLI as users
 * run it): merged into what is there (other bytes kept), idempotent, --dry-run writes nothing;
 * a malformed, read-only or linked file is refused naming it (and its line), with nothing written
 * anywhere; doctor names each misconfiguration with its fix (exit 1), is quiet after setup
 * (exit 0), and says so when the client is missing (exit 2). Doctor only looks the client up on
 * PATH, so a stub program stands for it here.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt } from '../mcp-helpers.ts'
import { CLI, Sandbox } from './harness.ts'
import type { Run } from '../cli.ts'

let box: Sandbox | undefined
beforeAll(() => assertBuilt())
afterEach(() => {
  box?.remove()
  box = undefined
})

/** A box whose PATH has stub `claude` and `codex` programs (what doctor looks for). */
function stubbed(): Sandbox {
  const root = new Sandbox({ binDir: '', bin: '' })
  const bin = join(root.root, 'bin')
  mkdirSync(bin)
  for (const name of ['claude', 'codex']) {
    writeFileSync(join(bin, name), '#!/bin/sh\nexit 0\n')
    chmodSync(join(bin, name), 0o755)
  }
  ;(root as unknown as { client: { binDir: string } }).client.binDir = bin
  return root
}

const read = (path: string) => readFileSync(path, 'utf8')

function snapshot(files: string[]): Record<string, { text: string | undefined; mtime: number | undefined }> {
  return Object.fromEntries(files.map((f) => [f, existsSync(f) ? { text: read(f), mtime: lstatSync(f).mtimeMs } : { text: undefined, mtime: undefined }]))
}

describe('dsh setup', { timeout: 60_000 }, () => {
  it.each([
    ['claude-code', ['--scope', 'user'], (b: Sandbox) => [join(b.home, '.claude.json'), join(b.home, '.claude/settings.json')]],
    ['claude-code', ['--scope', 'local'], (b: Sandbox) => [join(b.home, '.claude.json'), join(b.project, '.claude/settings.local.json')]],
    ['claude-code', ['--scope', 'project'], (b: Sandbox) => [join(b.project, '.mcp.json'), join(b.project, '.claude/settings.json'), join(b.project, '.claude/settings.local.json')]],
    ['codex', [], (b: Sandbox) => [join(b.home, '.codex/config.toml')]],
  ] as const)('%s %s: --dry-run writes nothing, the run writes, a second run changes nothing', async (client, flags, filesOf) => {
    box = stubbed()
    const files = filesOf(box)
    const dry = await box.dsh(['setup', client, ...flags, '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/^\+\+\+ /m)
    expect(dry.stdout).toContain('dry run: nothing was written')
    for (const f of files) expect(existsSync(f)).toBe(false)
    const first = await box.dsh(['setup', client, ...flags])
    expect(first.code, first.stderr).toBe(0)
    for (const f of files) expect(first.stdout).toContain(`created ${f}`)
    const after = snapshot(files)
    const second = await box.dsh(['setup', client, ...flags])
    expect(second.code).toBe(0)
    for (const f of files) expect(second.stdout).toContain(`unchanged ${f}`)
    expect(snapshot(files)).toEqual(after)
    expect((await box.dsh(['setup', client, ...flags, '--dry-run'])).stdout).toContain('nothing to change')
    // and what it says it leaves alone
    expect(first.stdout).toMatch(/keeps its own .*dsh does not replace them/)
  })

  it('merges into a user\'s settings: every other byte kept, the lists extended', async () => {
    box = stubbed()
    const original = '{\n    "model": "opus",\n    "permissions": {\n        "allow": ["Bash(git status)"],\n        "deny": ["Read(./secrets/**)"]\n    },\n    "env": {"A": "1"}\n}\n'
    const settings = box.write('.claude/settings.json', original, box.home)
    expect((await box.dsh(['setup', 'claude-code'])).code).toBe(0)
    const text = read(settings)
    expect(text.startsWith('{\n    "model": "opus",\n    "permissions": {\n        "allow": [')).toBe(true)
    expect(text.endsWith('    },\n    "env": {"A": "1"}\n}\n')).toBe(true)
    const doc = JSON.parse(text)
    expect(doc.permissions.allow).toEqual(['Bash(git status)', 'mcp__dsh'])
    expect(doc.permissions.deny[0]).toBe('Read(./secrets/**)')
    expect(doc.permissions.deny).toContain('Bash')
    expect(doc.permissions.deny).not.toContain('mcp__dsh')
  })

  it('merges into Codex\'s config.toml by line: comments, order and other tables kept', async () => {
    box = stubbed()
    const original = '# mine\nmodel = "gpt-5" # the model\n\n[features]\n# keep\nshell_tool = true # on\n\n[mcp_servers.docs]\ncommand = "docs"\nargs = [\n  "--x",\n]\n'
    const config = box.write('.codex/config.toml', original, box.home)
    expect((await box.dsh(['setup', 'codex'])).code).toBe(0)
    const text = read(config)
    expect(text.startsWith('# mine\nmodel = "gpt-5" # the model\nweb_search = "disabled"\ninclude_apply_patch_tool = false\n\n[features]\n# keep\nshell_tool = false # on\nunified_exec = false\ndaemon_auto_start = false\n\n[mcp_servers.docs]\ncommand = "docs"\nargs = [\n  "--x",\n]\n\n[mcp_servers.dsh]\n')).toBe(true)
    expect(text).toMatch(/\ndefault_tools_approval_mode = "approve"\n$/)
  })

  describe('bad input: a clear error naming the file (and line), nothing written anywhere, the original untouched', () => {
    it('malformed JSON', async () => {
      box = stubbed()
      const settings = box.write('.claude/settings.json', '{\n  "permissions": {\n    "allow": ["x",]\n  }\n}\n', box.home)
      const run = await box.dsh(['setup', 'claude-code'])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`${settings}:3:`)
      expect(run.stderr).toContain('not valid JSON')
      expect(run.stderr.trim().split('\n')[0]).toMatch(/^dsh setup: /)
      expect(read(settings)).toBe('{\n  "permissions": {\n    "allow": ["x",]\n  }\n}\n')
      expect(existsSync(join(box.home, '.claude.json'))).toBe(false)
    })

    it('malformed TOML', async () => {
      box = stubbed()
      const config = box.write('.codex/config.toml', 'model = "x"\n[features\nshell_tool = true\n', box.home)
      const run = await box.dsh(['setup', 'codex'])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`${config}:2:`)
      expect(run.stderr).toContain('not valid TOML')
      expect(read(config)).toBe('model = "x"\n[features\nshell_tool = true\n')
    })

    it('a read-only file', async () => {
      box = stubbed()
      const state = box.write('.claude.json', '{}\n', box.home)
      chmodSync(state, 0o444)
      const run = await box.dsh(['setup', 'claude-code'])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`${state} is read-only`)
      expect(read(state)).toBe('{}\n')
      expect(existsSync(join(box.home, '.claude/settings.json'))).toBe(false)
    })

    it('a symbolic link', async () => {
      box = stubbed()
      const target = box.write('dotfiles/config.toml', 'model = "x"\n', box.root)
      mkdirSync(join(box.home, '.codex'))
      const link = join(box.home, '.codex/config.toml')
      symlinkSync(target, link)
      const run = await box.dsh(['setup', 'codex'])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(`${link} is a symbolic link to ${target}`)
      expect(read(target)).toBe('model = "x"\n')
      expect(lstatSync(link).isSymbolicLink()).toBe(true)
    })

    it('a misspelt client or scope', async () => {
      box = stubbed()
      expect((await box.dsh(['setup', 'claude'])).stderr).toContain('unknown client "claude"')
      expect((await box.dsh(['setup', 'claude-code', '--scope', 'global'])).stderr).toContain('--scope must be user, project or local')
      expect((await box.dsh(['setup', 'codex', '--scope', 'user'])).code).toBe(2)
    })
  })
})

describe('dsh doctor', { timeout: 60_000 }, () => {
  it('a missing client: says so, exit 2', async () => {
    box = stubbed()
    const run = await box.dsh(['doctor', 'claude-code'], { PATH: '/usr/bin:/bin' })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('Claude Code: not installed (no claude on PATH)')
    expect((await box.dsh(['doctor'], { PATH: '/usr/bin:/bin' })).code).toBe(2)
  })

  it('Claude Code: each misconfiguration with its fix; none after setup', async () => {
    box = stubbed()
    let run = await box.dsh(['doctor', 'claude-code'])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('dsh is not one of Claude Code\'s MCP servers')
    expect(run.stdout).toContain('fix: dsh setup claude-code')
    expect((await box.dsh(['setup', 'claude-code'])).code).toBe(0)
    run = await box.dsh(['doctor', 'claude-code'])
    expect(run.stdout).toContain('no problems found')
    expect(run.code).toBe(0)

    const user = join(box.home, '.claude/settings.json')
    const doc = JSON.parse(read(user))
    // built-ins on again, a rule that denies dsh's tools, dsh allowed only in the untrusted project
    writeFileSync(user, JSON.stringify({ permissions: { deny: ['Bash', 'mcp__dsh__write'] } }))
    box.write('.claude/settings.json', JSON.stringify({ permissions: { allow: ['mcp__dsh'] }, hooks: { PreToolUse: [{ matcher: 'Bash|mcp__dsh__bash', hooks: [{ type: 'command', command: 'true' }] }, { matcher: '*', hooks: [{ type: 'command', command: 'true' }] }, { matcher: 'Write', hooks: [{ type: 'command', command: 'true' }] }] } }))
    run = await box.dsh(['doctor', 'claude-code'])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/Claude Code's own Monitor, Read, Edit, Write, NotebookEdit, Glob, Grep, WebFetch, WebSearch are still on/)
    expect(run.stdout).toContain(`the deny rule "mcp__dsh__write" in ${user} denies dsh's write`)
    expect(run.stdout).toMatch(/"mcp__dsh" is allowed only in .*project\/\.claude\/settings\.json, which Claude Code ignores until the project is trusted/)
    expect(run.stdout).toMatch(/matcher "Bash\|mcp__dsh__bash" .* runs twice for dsh's bash/)
    expect(run.stdout).toMatch(/matcher "\*" .* runs twice for dsh's bash, read, write/)
    expect(run.stdout).not.toMatch(/matcher "Write"/)
    expect(run.stdout.match(/ fix: /g)!.length).toBe(run.stdout.match(/problem: /g)!.length)
    writeFileSync(user, JSON.stringify(doc))
    // a malformed file is a problem naming its line, not a crash
    box.write('.claude/settings.local.json', '{\n  "permissions": \n}\n')
    run = await box.dsh(['doctor', 'claude-code'])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/settings\.local\.json:3:\d+: not valid JSON/)
  })

  it('Codex: each misconfiguration with its fix; none after setup', async () => {
    box = stubbed()
    const config = box.write('.codex/config.toml', '[mcp_servers.dsh]\ncommand = "/nowhere/node"\nargs = ["x", "mcp"]\n\n[profiles.web]\nweb_search = "live"\n', box.home)
    let run = await box.dsh(['doctor', 'codex'])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('runs /nowhere/node, which does not exist')
    expect(run.stdout).toContain('codex exec refuses them')
    expect(run.stdout).toMatch(/Codex keeps its web_search .*its shell tool, its exec_command shell/)
    expect(run.stdout).toContain('the profile "web"')
    expect((await box.dsh(['setup', 'codex'])).code).toBe(0)
    run = await box.dsh(['doctor', 'codex'])
    expect(run.stdout).toContain('the profile "web"')
    writeFileSync(config, read(config).replace('web_search = "live"\n', ''))
    run = await box.dsh(['doctor', 'codex'])
    expect(run.stdout, run.stdout).toContain('no problems found')
    expect(run.code).toBe(0)
  })
})

/**
 * Claude Code's managed settings live at a fixed system path (/etc/claude-code on Linux). dsh runs
 * here in a mount namespace of its own where /etc is an overlay with the files on top, so the
 * machine's /etc is never touched (needs root, as .ci/without-bwrap does).
 */
const managedSkip = process.getuid?.() !== 0 ? 'not root' : spawnSync('unshare', ['--mount', 'true']).status !== 0 ? 'unshare --mount fails here' : undefined
if (managedSkip) console.log(`skipping the managed-settings doctor test: ${managedSkip}`)

let tops = 0
function doctorWithEtc(b: Sandbox, etc: Record<string, string>, args: string[]): Promise<Run> {
  const top = join(b.root, `etc-top-${++tops}`)
  mkdirSync(top)
  for (const [relative, text] of Object.entries(etc)) b.write(relative, text, top)
  const script = 'mount -t overlay overlay -o "ro,lowerdir=$1:/etc" /etc && shift && exec "$@"'
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['--mount', '--propagation', 'private', 'bash', '-c', script, 'etc', top, process.execPath, CLI, ...args], { cwd: b.project, env: { ...process.env, NO_COLOR: '', ...b.env() }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('dsh doctor, the settings an administrator sets', { timeout: 60_000 }, () => {
  it.skipIf(managedSkip !== undefined)('Claude Code\'s managed settings and their drop-ins: a rule there that denies or asks for dsh\'s tools, with its fix', async () => {
    box = stubbed()
    expect((await box.dsh(['setup', 'claude-code'])).code).toBe(0)
    // twin: the same namespace with nothing managed finds nothing
    const clean = await doctorWithEtc(box, {}, ['doctor', 'claude-code'])
    expect(clean.stdout, clean.stderr).toContain('no problems found')
    expect(clean.code).toBe(0)
    const managed = '/etc/claude-code/managed-settings.json'
    const dropIn = '/etc/claude-code/managed-settings.d/50-team.json'
    const run = await doctorWithEtc(box, {
      'claude-code/managed-settings.json': JSON.stringify({ permissions: { deny: ['mcp__dsh__bash'] } }),
      'claude-code/managed-settings.d/50-team.json': JSON.stringify({ permissions: { ask: ['mcp__dsh'] } }),
    }, ['doctor', 'claude-code'])
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toContain(`the deny rule "mcp__dsh__bash" in ${managed} denies dsh's bash`)
    expect(run.stdout).toContain(`remove "mcp__dsh__bash" from permissions.deny in ${managed}`)
    expect(run.stdout).toContain(`the ask rule "mcp__dsh" in ${dropIn} makes Claude Code ask before every dsh tool`)
    expect(run.stdout).toContain(`remove "mcp__dsh" from permissions.ask in ${dropIn}`)
    // a managed file Claude Code cannot read is a problem naming its line
    const broken = await doctorWithEtc(box, { 'claude-code/managed-settings.json': '{\n  "permissions": {,\n}\n' }, ['doctor', 'claude-code'])
    expect(broken.code).toBe(1)
    expect(broken.stdout).toMatch(/\/etc\/claude-code\/managed-settings\.json:2:\d+: not valid JSON/)
  })

  it('Codex: daemon_auto_start left on, with its fix; none once it is off', async () => {
    box = stubbed()
    expect((await box.dsh(['setup', 'codex'])).code).toBe(0)
    const config = join(box.home, '.codex/config.toml')
    expect(read(config)).toContain('daemon_auto_start = false')
    writeFileSync(config, read(config).replace('daemon_auto_start = false', 'daemon_auto_start = true'))
    let run = await box.dsh(['doctor', 'codex'])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('background app-server that outlives /quit: dsh mcp stays running as its child')
    expect(run.stdout).toContain(`fix: dsh setup codex, or in ${config}: [features] daemon_auto_start = false`)
    // removed (Codex's default is on) is the same problem
    writeFileSync(config, read(config).replace('daemon_auto_start = true\n', ''))
    run = await box.dsh(['doctor', 'codex'])
    expect(run.stdout).toContain('background app-server that outlives /quit')
    expect((await box.dsh(['setup', 'codex'])).code).toBe(0)
    run = await box.dsh(['doctor', 'codex'])
    expect(run.stdout).toContain('no problems found')
    expect(run.code).toBe(0)
  })
})
