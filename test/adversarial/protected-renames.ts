// Protected paths under renames, moves, copies and replacements of their
// ancestors, on each real backend: a nested repository's directory moved
// away and copied back (`mv sub subX && cp -r subX sub`), swapped for a
// link, the top-level `.git` renamed under `git: commit` and rebuilt, a
// settings directory replaced by a fresh one. bwrap and landlock-ns refuse
// the rename itself (every ancestor of a nested protected entry is a mount
// point there, and rename(2) of one fails with EBUSY); Landlock alone lets
// it happen and puts back, by path, what the host would run. Either way,
// afterwards git run on the host at the path the user knows runs nothing
// the command planted: a planted hook or fsmonitor would create a marker
// file outside every writable root, and git has returned when it would.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LocalBackend } from '@dsh/sandbox'
import { outsideDir, pathTitle, scriptsOnBackend, tmp, tree } from './harness.js'
import { lacks } from '../backends.js'

const GIT_ENV = { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' }

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', env: GIT_ENV })
}

/** A repository at `dir` with one commit. */
function repo(dir: string): void {
  fs.mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q')
  fs.writeFileSync(path.join(dir, 'README'), 'readme\n')
  git(dir, 'add', 'README')
  git(dir, 'commit', '-qm', 'first')
}

/** A workspace: a repository with a nested one at `sub` and another two levels down at `vendor/lib`, and `.claude`. */
function workspace(): string {
  const ws = tmp('ws')
  repo(ws)
  repo(path.join(ws, 'sub'))
  repo(path.join(ws, 'vendor/lib'))
  fs.mkdirSync(path.join(ws, '.claude'))
  fs.writeFileSync(path.join(ws, '.claude/settings.json'), '{}\n')
  return ws
}

/**
 * Run git at `dir` on the host the way a user would after the call (status,
 * which runs core.fsmonitor; a commit, which runs the commit hooks); true when
 * anything the command planted ran (the marker exists once git returned).
 */
function hostGitRanPlanted(dir: string, marker: string): boolean {
  for (const args of [['status'], ['commit', '--allow-empty', '-qm', 'host']]) {
    // Why spawnSync and no throw: a path the sandbox left without a repository makes git fail, which is fine
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-C', dir, ...args], { env: GIT_ENV, stdio: 'ignore', timeout: 15_000 })
  }
  return fs.existsSync(marker)
}

/** Plant a hook and an fsmonitor in the repository at `dir` (as seen by the command) that would touch `marker`. */
function plant(dir: string, marker: string): string {
  return [
    `mkdir -p ${dir}/.git/hooks`,
    `printf '#!/bin/sh\\ntouch ${marker}\\n' > ${dir}/.git/hooks/pre-commit`, `chmod +x ${dir}/.git/hooks/pre-commit`,
    `git -C ${dir} config core.fsmonitor "touch ${marker}"`,
  ].join('; ')
}

export async function protectedRenamesSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} protected-renames suite`)

  describe.skipIf(skip)(`protected paths under renamed ancestors, on the ${backend} backend${pathTitle()}`, () => {
    const { start, sandbox, sh } = scriptsOnBackend(backend)

    it('a nested repository moved away and copied back: its hooks and config stay, and git on the host runs nothing planted', async () => {
      const ws = workspace()
      const marker = path.join(outsideDir(), 'planted-ran')
      const sub = tree(path.join(ws, 'sub/.git'))
      const lib = tree(path.join(ws, 'vendor/lib/.git'))
      const r = await sh(sandbox(), ws, [
        'mv sub subX && cp -r subX sub', plant('sub', marker),
        'mv vendor v2 && cp -r v2 vendor', plant('vendor/lib', marker),
        'mv vendor/lib vendor/l2 && cp -r vendor/l2 vendor/lib', plant('vendor/lib', marker),
        // the rest of the workspace stays writable
        'mkdir -p build/x && mv build built && rm -rf built && echo ok > allowed.txt',
      ].join('; '))
      expect(fs.readFileSync(path.join(ws, 'allowed.txt'), 'utf8')).toBe('ok\n')
      expect(fs.existsSync(path.join(ws, 'built'))).toBe(false)
      if (backend === 'landlock') {
        // Landlock cannot refuse the rename: what git runs at the path is put back, and the result says so
        expect(r.confined.unenforced).toContain('protected-paths')
        expect(r.restored).toEqual(expect.arrayContaining([path.join(ws, 'sub/.git/hooks'), path.join(ws, 'sub/.git/config')]))
        const now = tree(path.join(ws, 'sub/.git'))
        for (const [k, v] of Object.entries(sub)) if (k === 'config' || k.startsWith('hooks/')) expect(now[k]).toEqual(v)
        expect(Object.keys(now).filter((k) => k.startsWith('hooks/'))).toEqual(Object.keys(sub).filter((k) => k.startsWith('hooks/')))
      } else {
        // refused outright: nothing was moved, copied or written
        expect(r.stderr).toMatch(/busy/i)
        expect(fs.existsSync(path.join(ws, 'subX'))).toBe(false)
        expect(fs.existsSync(path.join(ws, 'v2'))).toBe(false)
        expect(fs.existsSync(path.join(ws, 'vendor/l2'))).toBe(false)
        expect(tree(path.join(ws, 'sub/.git'))).toEqual(sub)
        expect(tree(path.join(ws, 'vendor/lib/.git'))).toEqual(lib)
        expect(r.restored).toEqual([])
      }
      expect(hostGitRanPlanted(path.join(ws, 'sub'), marker)).toBe(false)
      expect(hostGitRanPlanted(path.join(ws, 'vendor/lib'), marker)).toBe(false)
    })

    it('a nested repository swapped for a link to a planted copy: git at that path on the host runs nothing planted', async () => {
      const ws = workspace()
      const marker = path.join(outsideDir(), 'planted-ran')
      const sub = tree(path.join(ws, 'sub/.git'))
      const r = await sh(sandbox(), ws, [`cp -r sub evil`, plant('evil', marker), 'mv sub subX; ln -s evil sub', 'mv -T evil sub', 'echo done'].join('; '))
      expect(r.stdout).toContain('done')
      if (backend === 'landlock') {
        // the link was the command's: removed, never followed; nothing is put back through it
        expect(fs.lstatSync(path.join(ws, 'sub'), { throwIfNoEntry: false })?.isSymbolicLink() ?? false).toBe(false)
      } else {
        expect(fs.lstatSync(path.join(ws, 'sub')).isDirectory()).toBe(true)
        expect(tree(path.join(ws, 'sub/.git'))).toEqual(sub)
        expect(fs.existsSync(path.join(ws, 'subX'))).toBe(false)
      }
      expect(hostGitRanPlanted(path.join(ws, 'sub'), marker)).toBe(false)
    })

    it('git: commit — the top-level .git renamed and rebuilt by copy: its hooks and config stay', async () => {
      const committing = await start({ git: 'commit' })
      const ws = workspace()
      const marker = path.join(outsideDir(), 'planted-ran')
      const hooks = tree(path.join(ws, '.git/hooks'))
      const config = fs.readFileSync(path.join(ws, '.git/config'), 'utf8')
      const r = await sh(committing, ws, ['mv .git g2 && cp -r g2 .git', plant('.', marker), 'echo done'].join('; '))
      expect(r.stdout).toContain('done')
      expect(fs.readFileSync(path.join(ws, '.git/config'), 'utf8')).toBe(config)
      expect(tree(path.join(ws, '.git/hooks'))).toEqual(hooks)
      if (backend !== 'landlock') expect(fs.existsSync(path.join(ws, 'g2'))).toBe(false)
      expect(hostGitRanPlanted(ws, marker)).toBe(false)
    })

    it('git: commit — a protected path that did not exist (.git/hooks), created under the renamed and rebuilt .git: gone after the call', async () => {
      const committing = await start({ git: 'commit' })
      const ws = workspace()
      const marker = path.join(outsideDir(), 'planted-ran')
      fs.rmSync(path.join(ws, '.git/hooks'), { recursive: true })
      const config = fs.readFileSync(path.join(ws, '.git/config'), 'utf8')
      const r = await sh(committing, ws, ['mv .git g2 && mkdir .git && cp -r g2/. .git/', plant('.', marker), 'echo done'].join('; '))
      expect(r.stdout).toContain('done')
      expect(fs.existsSync(path.join(ws, '.git/hooks'))).toBe(false)
      expect(fs.readFileSync(path.join(ws, '.git/config'), 'utf8')).toBe(config)
      expect(hostGitRanPlanted(ws, marker)).toBe(false)
    })

    it('the top-level .git replaced by a fresh directory pointing git elsewhere (commondir): git on the host runs nothing planted', async () => {
      const ws = workspace()
      const marker = path.join(outsideDir(), 'planted-ran')
      const head = git(ws, 'rev-parse', 'HEAD')
      // a complete git directory of the command's, and the workspace's .git told to take its config and hooks from it
      const r = await sh(sandbox(), ws, [
        'cp -r sub/.git evilgit', `printf '#!/bin/sh\\ntouch ${marker}\\n' > evilgit/hooks/pre-commit`, 'chmod +x evilgit/hooks/pre-commit',
        `git --git-dir=evilgit config core.fsmonitor "touch ${marker}"`,
        'echo "$PWD/evilgit" > .git/commondir', 'mv .git g2; mkdir .git; cp -r g2/. .git/; echo "$PWD/evilgit" > .git/commondir', 'echo done',
      ].join('; '))
      expect(r.stdout).toContain('done')
      expect(fs.existsSync(path.join(ws, '.git/commondir'))).toBe(false)
      expect(git(ws, 'rev-parse', 'HEAD')).toBe(head)
      expect(hostGitRanPlanted(ws, marker)).toBe(false)
    })

    it('.claude renamed and replaced by a fresh one, and a nested .envrc under a replaced parent: both as they were', async () => {
      const ws = workspace()
      fs.mkdirSync(path.join(ws, 'pkg/app'), { recursive: true })
      fs.writeFileSync(path.join(ws, 'pkg/app/.envrc'), 'export SAFE=1\n')
      const before = tree(ws)
      const r = await sh(sandbox(), ws, [
        'mv .claude x; mkdir .claude; echo \'{"hooks":{}}\' > .claude/settings.json',
        'mv pkg/app pkg/a2; mkdir pkg/app; echo "export EVIL=1" > pkg/app/.envrc', 'echo done',
      ].join('; '))
      expect(r.stdout).toContain('done')
      expect(fs.readFileSync(path.join(ws, '.claude/settings.json'), 'utf8')).toBe('{}\n')
      expect(fs.readFileSync(path.join(ws, 'pkg/app/.envrc'), 'utf8')).toBe('export SAFE=1\n')
      if (backend !== 'landlock') expect(tree(ws)).toEqual(before)
    })
  })
}
