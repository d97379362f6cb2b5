// The launcher's prefilter of exec checks (landlock-run --exec-match, exec-decide.ts execNeeds):
// an exec of a program a rule names is asked of the host only when its strings hold what one of
// the rule's ways of meeting it needs. The prefilter may only ever spare the host an exec the rules
// could not refuse: checked here against the matcher itself, on the real launcher of each backend,
// for random argvs (reordered and clustered flags, `--flag=value`, argv[0] spoofed, a trailing
// slash, words holding spaces) — every exec the matcher denies is refused and never runs, every
// other one runs; and the execs the rules could not meet are never asked of the host.
import fs from 'node:fs'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { compileRuleSet, decideExec, execNeeds, execPrograms, INLINE, loadShellParser, type RuleSet } from '@dsh/claude-code-permissions'
import { SandboxService, startProcess, sandboxEnv, type ExecRequest } from '@dsh/sandbox'
import type { Session } from '@dsh/kernel'
import { LINUX_BACKENDS, lackingLinuxBackends } from '../backends.js'
import { tempDirs } from '../temp-dirs.js'

const temps = tempDirs()
const contexts: Context[] = []
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.stop()
  temps.removeAll()
})

const missing = await lackingLinuxBackends((backend) => `the exec prefilter on ${backend}`)
const call = { session: {} as Session, callId: 'call-1' }

const DENY = ['Bash(rm -rf:*)', 'Bash(git push:*)', 'Bash(curl * --upload-file *)', 'Bash(tar --extract=all:*)', 'Bash(/opt/tool/run go)']

function rules(workspace: string): RuleSet {
  return compileRuleSet([{ source: INLINE, root: workspace, permissions: { deny: DENY } }], { workspace, home: workspace, extraTools: new Set() })
}

describe('what a rule needs of an exec', () => {
  it('lists each piece of its text, and for a rule with flags the loose way too (long flags whole, short ones by letter)', async () => {
    const set = rules('/w')
    const needs = execNeeds(set)
    expect(needs.rm).toEqual([['srm', 's-rf'], ['srm', 'fr', 'ff']])
    expect(needs.git).toEqual([['sgit', 'spush']])
    expect(needs.curl).toEqual([['scurl', 's--upload-file'], ['scurl', 's--upload-file']])
    expect(needs.tar).toEqual([['star', 's--extract=all'], ['star', 's--extract=all']])
    expect(needs['/opt/tool/run']).toEqual([['s/opt/tool/run', 'sgo']])
    // a wrapper's argv holds a command: each of its execs is asked
    expect(execPrograms(set)).toContain('sh')
    expect(needs.sh).toBeUndefined()
  })
})

describe('needs across restrictions', () => {
  async function sandboxWith(...restrictions: object[]) {
    const ctx = new Context()
    contexts.push(ctx)
    ctx.plugin(SandboxService, { backends: [], workspace: '/' })
    await ctx.start()
    const sandbox = ctx.get('sandbox') as SandboxService
    for (const restriction of restrictions) sandbox.restrict(() => restriction)
    return sandbox
  }
  const check = () => ({ allow: true as const })

  it('a program keeps needs only when every restriction listing it says them (one that does not asks of each exec)', async () => {
    const sandbox = await sandboxWith(
      { exec: { programs: ['git', 'rm'], needs: { git: [['sgit', 'spush']], rm: [['srm', 'fr']] }, check } },
      { exec: { programs: ['git', 'make'], needs: { make: [['smake', 'sinstall']] }, check } },
    )
    const rules = sandbox.resolve({ mode: 'read-only', workspace: '/' }).execRules!
    expect(rules.programs).toEqual(['git', 'rm', 'make'])
    expect(rules.needs).toEqual({ rm: [['srm', 'fr']], make: [['smake', 'sinstall']] })
  })

  it('needs the launcher could not take refuse the policy, naming what was wrong', async () => {
    for (const needs of [{ git: [['xgit']] }, { git: [['fab']] }, { 'my git': [['sgit']] }, { git: [['s']] }, { git: [['sa b']] }, { git: 'sgit' }, [['sgit']]]) {
      const sandbox = await sandboxWith({ exec: { programs: ['git'], needs, check } })
      expect(() => sandbox.resolve({ mode: 'read-only', workspace: '/' }), JSON.stringify(needs)).toThrow(/answered exec needs that are not lists/)
    }
  })
})

const PROGRAMS = ['rm', 'git', 'curl', 'tar', 'true']
const WORDS = ['-rf', '-fr', '-r', '-f', '-x', '-Rf', '--force', '--upload-file', '--upload-file=x', '--extract=all', '--extract=al', 'push', 'pus', 'pushx', 'status', 'x', 'a b', '-rf x', 'rm', 'go', 'origin']

/** A deterministic generator (mulberry32), so a failure names a case that comes back. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Case { path: string; argv: string[] }

function cases(bin: string, count: number, seed: number): Case[] {
  const next = random(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]
  const out: Case[] = []
  for (let i = 0; i < count; i++) {
    const program = pick(PROGRAMS)
    const argv0 = pick([program, `${bin}/${program}`, `x/${pick(PROGRAMS)}/`, pick(PROGRAMS), 'rm', '/opt/tool/run'])
    const argv = [argv0, ...Array.from({ length: Math.floor(next() * 4) }, () => pick(WORDS))]
    out.push({ path: `${bin}/${program}`, argv })
  }
  return out
}

/** Runs each case as fork + execv in the confined command; prints one exit status a line. */
const RUNNER = `import json, os, sys
for c in json.load(open(sys.argv[1])):
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(c['path'], c['argv'])
        except PermissionError:
            os._exit(77)
        os._exit(78)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
`

for (const backend of LINUX_BACKENDS) {
  describe.skipIf(missing[backend])(`the launcher's prefilter (${backend})`, () => {
    it('refuses every exec the matcher denies and runs every other one, of 400 random execs and ten chosen ones; the execs no rule could meet are never asked', async () => {
      await loadShellParser()
      const ws = fs.realpathSync(temps.make('dsh-prefilter-'))
      const bin = path.join(ws, 'bin')
      fs.mkdirSync(bin)
      // Why copies of true: each program is known by its real path's name, and running one does nothing
      for (const name of PROGRAMS) fs.copyFileSync('/bin/true', path.join(bin, name))
      for (const name of PROGRAMS) fs.chmodSync(path.join(bin, name), 0o755)
      const spare = [{ path: `${bin}/git`, argv: ['git', 'status'] }, { path: `${bin}/rm`, argv: ['rm', '-f', 'x'] }, { path: `${bin}/curl`, argv: ['curl', '--upload', 'x'] }]
      const refuse = [
        { path: `${bin}/rm`, argv: ['rm', '-fr', 'x'] }, { path: `${bin}/rm`, argv: ['rm', '-r', '-f'] }, { path: `${bin}/true`, argv: ['x/rm/', '-rf'] },
        { path: `${bin}/git`, argv: ['/usr/bin/git', 'push'] }, { path: `${bin}/curl`, argv: ['curl', 'a', '--upload-file', 'b'] }, { path: `${bin}/tar`, argv: ['tar', '--extract=all'] },
        { path: `${bin}/true`, argv: ['/opt/tool/run', 'go'] },
      ]
      const all = [...spare, ...refuse, ...cases(bin, 400, 31)]
      fs.writeFileSync(path.join(ws, 'cases.json'), JSON.stringify(all))
      fs.writeFileSync(path.join(ws, 'run.py'), RUNNER)
      const set = rules(ws)
      const env = { set, mode: 'default' as const, workspace: ws, directories: [ws] }
      const denied = (facts: Pick<ExecRequest, 'path' | 'realPath' | 'argv' | 'truncated'>) => decideExec(facts, set, env)?.decision === 'deny'

      const ctx = new Context()
      contexts.push(ctx)
      ctx.plugin(SandboxService, { backends: [backend], workspace: ws, mode: 'read-only' })
      await ctx.start()
      const sandbox = ctx.get('sandbox') as SandboxService
      const asked: ExecRequest[] = []
      sandbox.restrict(() => ({ exec: { programs: execPrograms(set), needs: execNeeds(set), check: (request) => (asked.push(request), denied(request) ? { allow: false, reason: 'denied by the rules' } : { allow: true }) } }))
      const confined = await sandbox.confine(['/usr/bin/python3', path.join(ws, 'run.py'), path.join(ws, 'cases.json')], { mode: 'read-only', workspace: ws }, call)
      let statuses: number[]
      try {
        const proc = startProcess({ argv: confined.argv, cwd: ws, env: { ...sandboxEnv(ws), ...confined.spawnEnv }, timeoutMs: 60_000, maxOutputBytes: 1 << 20, killGraceMs: 2000, pipeGraceMs: 250 })
        const out = await proc.done
        expect(out.exitCode, out.stderr.text()).toBe(0)
        statuses = out.stdout.text().trim().split('\n').map(Number)
      } finally {
        confined.cleanup()
      }
      expect(statuses).toHaveLength(all.length)
      const expected = all.map((c) => (denied({ path: c.path, realPath: c.path, argv: c.argv, truncated: false }) ? 77 : 0))
      const wrong = all.map((c, i) => ({ ...c, got: statuses[i], want: expected[i] })).filter((c) => c.got !== c.want)
      expect(wrong).toEqual([])
      // both kinds are in the sample, and the prefilter spared the host some execs of named programs
      expect(expected.filter((status) => status === 77).length).toBeGreaterThan(20)
      expect(expected.filter((status) => status === 0).length).toBeGreaterThan(20)
      const spared = all.filter((c) => !asked.some((r) => r.path === c.path && JSON.stringify(r.argv) === JSON.stringify(c.argv)))
      expect(spared.length).toBeGreaterThan(50)
      expect(spared.filter((c) => c.argv[0] !== 'true' && path.basename(c.path) !== 'true').length).toBeGreaterThan(20)
      // `git status` under `deny Bash(git push:*)`, `rm -f x` under `deny Bash(rm -rf:*)`: never asked; the twins refused
      for (const c of spare) expect(asked.filter((r) => JSON.stringify(r.argv) === JSON.stringify(c.argv))).toEqual([])
      expect(statuses.slice(spare.length, spare.length + refuse.length)).toEqual(refuse.map(() => 77))
    }, 120_000)
  })
}
