/**
 * Adversarial: Bash rules at every exec (DESIGN §16.6), through the whole
 * pipeline with the real workspace-tools bash, the real launcher and each
 * backend this machine has, under workspace-write (so a command let through
 * really deletes). With `deny: ["Bash(rm:*)"]`, every spelling that keeps
 * `rm` out of the command's text — a script, a Makefile recipe, an npm
 * script, find -exec, a pipe or heredoc into sh, an expansion — still ends in
 * an exec of rm (or of `sh -c 'rm x'`), which the kernel stops and the rules
 * refuse: the file survives, and the refusal is in the session log with the
 * exec's argv. The text-level asks for what cannot be read before the run are
 * approved here, so that the exec check is all that stands in the way.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as permissions from '@dsh/claude-code-permissions'
import * as workspaceTools from '@dsh/workspace-tools'
import type { LocalBackend } from '@dsh/sandbox'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { lacks } from '../backends.js'
import { explainCall } from '../../core/dsh/src/cli/explain-call.js'
import { plugApprover } from './kernel.js'

const BACKENDS: LocalBackend[] = ['bwrap', 'landlock-ns', 'landlock']
const missing = Object.fromEntries(await Promise.all(BACKENDS.map(async (name) => [name, await lacks(name, `the exec-rule attacks on ${name}`)] as const)))

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

async function kernel(backend: LocalBackend, rules: Record<string, string[]>, answer: 'approved' | 'denied' = 'approved') {
  k = await createTestKernel({ sandbox: { mode: 'workspace-write', backends: [backend] } })
  const asked = plugApprover(k.ctx, answer)
  k.ctx.plugin(workspaceTools as any, { workspace: k.dir })
  k.ctx.plugin(permissions as any, { settingsFiles: [], preset: 'on-request', permissions: rules })
  await k.ctx.lifecycle.flush()
  writeFileSync(join(k.dir, 'x'), 'keep me')
  return { k, asked }
}

interface Decided { decision: string; rule?: string; by?: string; program?: string; argv?: string[] }
const execDecisions = (k: TestKernel) => k.session.events().filter((e) => e.type === 'permission/decided' && (e.data as Decided).by === 'exec').map((e) => e.data as Decided)
const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content))

/** This machine's dynamic loader (what /bin/sh's PT_INTERP names). */
const LOADER = ['/lib64/ld-linux-x86-64.so.2', '/lib/ld-linux-aarch64.so.1'].find((path) => existsSync(path)) ?? '/lib64/ld-linux-x86-64.so.2'

/** Each attack: the command, and the files it needs in the workspace. */
const ATTACKS: Array<{ command: string; title?: string; files?: Record<string, string>; executable?: string }> = [
  { command: 'sh s.sh', files: { 's.sh': 'rm x\n' } },
  { command: './s.sh', files: { 's.sh': '#!/bin/sh\nrm x\n' }, executable: 's.sh' },
  { command: 'make', files: { Makefile: 'all:\n\trm x\n' } },
  { command: 'npm run --silent clean', files: { 'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { clean: 'rm x' } }) } },
  { command: 'find . -name x -exec rm {} \\;' },
  { command: "printf 'rm x' | sh" },
  { command: 'sh <<EOF\nrm x\nEOF' },
  { command: 'a=rm; $a x' },
  { command: '$(echo rm) x' },
  { command: 'rm${IFS}x' },
  // the dynamic loader maps rm and runs it in its own process: the only exec is the loader's
  { command: `printf '${LOADER} /bin/rm x' | sh`, title: "printf '<the dynamic loader> /bin/rm x' | sh" },
]

for (const backend of BACKENDS) {
  describe.skipIf(missing[backend])(`deny Bash(rm:*) at every exec (${backend})`, () => {
    for (const attack of ATTACKS) {
      it(`${JSON.stringify(attack.title ?? attack.command)}: the exec of rm is refused, the file survives, the log has the exec's argv`, async () => {
        const { k } = await kernel(backend, { deny: ['Bash(rm:*)'] })
        for (const [path, content] of Object.entries(attack.files ?? {})) writeFileSync(join(k.dir, path), content)
        if (attack.executable) chmodSync(join(k.dir, attack.executable), 0o755)
        const result = await k.call('bash', { command: attack.command })
        expect(existsSync(join(k.dir, 'x')), text(result.content)).toBe(true)
        const refused = execDecisions(k).filter((d) => d.decision === 'deny')
        expect(refused.length, text(result.content)).toBeGreaterThan(0)
        for (const d of refused) {
          expect(d.rule).toBe('Bash(rm:*)')
          // the argv as the program got it: rm's own, or a shell's whose script runs rm
          expect(d.argv!.join(' ')).toMatch(/\brm\b.*\bx\b/)
          expect(d.program).toMatch(/^\//)
        }
        expect(text(result.content)).toMatch(/\[permissions: exec of .*rm.* refused: denied by the permission rule Bash\(rm:\*\)/)
        // the clients hand the model the value, not the text: the refusal is there too
        expect((result.value as { notes?: string[] }).notes?.join('\n')).toMatch(/\[permissions: exec of .*rm.* refused: denied by the permission rule Bash\(rm:\*\)/)
        const sandbox = k.session.events().find((e) => e.type === 'tool/result')?.data as { sandbox?: { unenforced?: string[] } } | undefined
        expect(sandbox?.sandbox?.unenforced ?? []).not.toContain('exec-rules')
      }, 60_000)
    }

    it('a script is decided as its #! interpreter runs it: deny Bash(python3:*) refuses ./del.py, which the kernel would run with no exec of python3', async () => {
      const { k } = await kernel(backend, { deny: ['Bash(python3:*)'] })
      writeFileSync(join(k.dir, 'del.py'), '#!/usr/bin/python3 -S\nimport os\nos.remove("x")\n')
      chmodSync(join(k.dir, 'del.py'), 0o755)
      const result = await k.call('bash', { command: './del.py' })
      expect(existsSync(join(k.dir, 'x')), text(result.content)).toBe(true)
      expect(execDecisions(k)).toContainEqual(expect.objectContaining({ decision: 'deny', rule: 'Bash(python3:*)', argv: ['./del.py'], program: expect.stringMatching(/\/del\.py$/) }))
    }, 60_000)

    // the kernel runs a script's interpreter with no exec of its own, following a symlink and a nested `#!`
    const INTERPRETERS: Array<{ what: string; setup: string; files: Record<string, string> }> = [
      { what: 'an interpreter that is a symlink to rm (#!./myrm)', setup: 'ln -s /bin/rm myrm', files: { s: '#!./myrm\n' } },
      { what: 'an interpreter path with a vertical tab, which the kernel keeps in the name (#!./d\\v/rm)', setup: 'mkdir "$(printf \'d\\v\')" && cp /bin/rm "$(printf \'d\\v\')/rm"', files: { s: '#!./d\v/rm\n' } },
      { what: 'an interpreter that is a script whose own interpreter is rm (#!./i1, #!./myrm)', setup: 'ln -s /bin/rm myrm', files: { s: '#!./i1\n', i1: '#!./myrm -f\n' } },
    ]
    // the dynamic loader maps the file it is given: one reached through a symlink is known by its real path
    const LOADED: Array<{ what: string; command: string; files?: Record<string, string> }> = [
      { what: 'the loader given a symlink to rm', command: `ln -s /bin/rm foo && ${LOADER} ./foo x` },
      { what: 'the loader through env, given a symlink to rm', command: `ln -s /bin/rm foo && env ${LOADER} --argv0 ls ./foo x` },
      { what: 'a script whose interpreter is the loader, given a symlink to rm', command: 'ln -s /bin/rm foo && ./s x', files: { s: `#!${LOADER} ./foo\n` } },
    ]
    for (const attack of LOADED) {
      it(`${attack.what}: refused as the rm it loads, the file survives`, async () => {
        const { k } = await kernel(backend, { deny: ['Bash(rm:*)'] })
        for (const [path, content] of Object.entries(attack.files ?? {})) {
          writeFileSync(join(k.dir, path), content)
          chmodSync(join(k.dir, path), 0o755)
        }
        const result = await k.call('bash', { command: `${attack.command}; echo "status $?"` })
        expect(existsSync(join(k.dir, 'x')), text(result.content)).toBe(true)
        expect(execDecisions(k).filter((d) => d.decision === 'deny' && d.rule === 'Bash(rm:*)').length, text(result.content)).toBeGreaterThan(0)
      }, 60_000)
    }

    for (const attack of INTERPRETERS) {
      it(`${attack.what}: the exec of the script is refused as the rm it runs, the file survives`, async () => {
        const { k } = await kernel(backend, { deny: ['Bash(rm:*)'] })
        for (const [path, content] of Object.entries(attack.files)) {
          writeFileSync(join(k.dir, path), content)
          chmodSync(join(k.dir, path), 0o755)
        }
        const result = await k.call('bash', { command: `${attack.setup} && ./s x; echo "status $?"` })
        expect(existsSync(join(k.dir, 'x')), text(result.content)).toBe(true)
        expect(existsSync(join(k.dir, 's'))).toBe(true)
        expect(text(result.content)).toMatch(/status 126/)
        expect(execDecisions(k)).toContainEqual(expect.objectContaining({ decision: 'deny', rule: 'Bash(rm:*)', argv: ['./s', 'x'], program: expect.stringMatching(/\/s$/) }))
      }, 60_000)
    }

    it('twin: with no rule that could refuse an exec, nothing is stopped and the same commands run', async () => {
      const { k } = await kernel(backend, { deny: ['Read(./secret)'] })
      writeFileSync(join(k.dir, 's.sh'), 'rm x\n')
      const result = await k.call('bash', { command: 'sh s.sh' })
      expect(result.isError, text(result.content)).toBe(false)
      expect(existsSync(join(k.dir, 'x'))).toBe(false)
      expect(execDecisions(k)).toEqual([])
    }, 60_000)

    it('a shell loop of 1,000 execs under a matching rule set runs them all (each one checked, none refused)', async () => {
      const { k } = await kernel(backend, { deny: ['Bash(rm:*)'] })
      const result = await k.call('bash', { command: 'i=0; while [ $i -lt 1000 ]; do /bin/true || exit 1; i=$((i+1)); done; echo done $i', timeout: 120_000 })
      expect(text(result.content)).toContain('done 1000')
      expect(execDecisions(k)).toEqual([])
    }, 180_000)
  })

  describe.skipIf(missing[backend])(`ask Bash(git push:*) at the exec (${backend})`, () => {
    async function pushing(answer: 'approved' | 'denied') {
      const ctx = await kernel(backend, { ask: ['Bash(git push:*)'] }, answer)
      const { k } = ctx
      const git = (dir: string, ...args: string[]) => `git -C ${dir} ${args.join(' ')}`
      const remote = join(k.dir, 'remote.git')
      mkdirSync(join(k.dir, 'work'))
      const setup = [
        `git init -q --bare ${remote}`,
        git('work', 'init', '-q', '-b', 'main'),
        git('work', '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'one'),
      ].join(' && ')
      const made = await k.call('bash', { command: setup })
      expect(made.isError, text(made.content)).toBe(false)
      writeFileSync(join(k.dir, 'Makefile'), `push:\n\tcd work && git push -q ${remote} main\n\techo pushed >> pushes.log\n`)
      return { ...ctx, remote }
    }
    const pushedHeads = async (k: TestKernel, remote: string) => {
      const r = await k.call('bash', { command: `git -C ${remote} rev-parse --verify -q refs/heads/main || echo none` })
      return text(r.content)
    }

    it('approved: the exec pauses for the approval, then runs once', async () => {
      const { k, asked, remote } = await pushing('approved')
      const before = asked.length
      const result = await k.call('bash', { command: 'make -s push' })
      expect(text(result.content)).toContain('[exit code 0]')
      expect(asked.length - before).toBe(1)
      expect(existsSync(join(k.dir, 'pushes.log'))).toBe(true)
      expect(await pushedHeads(k, remote)).not.toContain('none')
      const askedEvents = k.session.events().filter((e) => e.type === 'approval/asked')
      expect(askedEvents.at(-1)?.data).toMatchObject({ name: 'bash', arguments: { exec: { argv: expect.arrayContaining(['git', 'push']) } } })
      expect(execDecisions(k)).toEqual([expect.objectContaining({ decision: 'ask', rule: 'Bash(git push:*)', argv: expect.arrayContaining(['push']) })])
    }, 60_000)

    it('denied: make sees the exec fail, nothing is pushed', async () => {
      const { k, remote } = await pushing('denied')
      const result = await k.call('bash', { command: 'make -s push' })
      expect(text(result.content)).not.toContain('[exit code 0]')
      expect(text(result.content)).toMatch(/\[permissions: exec of git push -q .* refused/)
      expect(existsSync(join(k.dir, 'pushes.log'))).toBe(false)
      expect(await pushedHeads(k, remote)).toContain('none')
      // dsh inspect --call: the exec's ask and its answer are the body's evidence, not the call's approval
      const callId = (k.session.events().filter((e) => e.type === 'tool/call').at(-2)!.data as { callId: string }).callId
      const steps = Object.fromEntries(explainCall(k.session.events(), callId)!.steps.map((step) => [step.step, step]))
      expect(steps.approval.outcome).toBe('skipped')
      // asked once: the shell's retry of the refused exec on the next PATH entry is refused without asking again
      expect(steps.body.evidence.slice(0, 3)).toEqual([
        expect.stringMatching(/^exec asked about: git push -q .* main \(\/usr\/bin\/git\) by rule Bash\(git push:\*\) \(inline\)$/),
        expect.stringMatching(/^exec asked: exec of git push/),
        expect.stringMatching(/^exec decided denied: a person said no/),
      ])
      for (const line of steps.body.evidence.slice(3)) expect(line).toMatch(/^exec refused: git push -q .* by rule Bash\(git push:\*\)/)
    }, 60_000)
  })
}
