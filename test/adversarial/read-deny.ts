// The read policy under attack on each real backend: denied paths read
// directly, through a symlink planted in the workspace or beside them, through
// /proc/self/root, listed, hard-linked during the call, and an allowed path inside a denied directory;
// the default hides /etc/shadow. Every test asserts that the secret never
// appears in the command's output and that the host can still read it.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { LocalBackend, SandboxPolicy } from '@dsh/sandbox'
import { cleanTemps, outsideDir, pathTitle, runConfined, startSandbox, tmp, type Sandbox } from './harness.js'
import { lacks } from '../backends.js'

export async function readDenySuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} read-policy suite`)

  describe.skipIf(skip)(`the read policy on the ${backend} backend${pathTitle()}`, () => {
    let sb: Sandbox
    beforeAll(async () => {
      sb = await startSandbox(backend)
    })
    afterAll(async () => {
      await sb?.stop()
    })
    afterEach(() => cleanTemps())

    const setup = () => {
      const ws = tmp('ws')
      const out = outsideDir()
      fs.mkdirSync(path.join(out, 'creds/public'), { recursive: true })
      fs.writeFileSync(path.join(out, 'creds/id_rsa'), 'SECRET-KEY')
      fs.writeFileSync(path.join(out, 'creds/public/ok'), 'public-part')
      fs.writeFileSync(path.join(out, 'token'), 'SECRET-TOKEN')
      return { ws, out, creds: path.join(out, 'creds'), token: path.join(out, 'token') }
    }
    const sh = async (ws: string, script: string, policy: Partial<SandboxPolicy> = {}) => {
      const confined = await sb.service.confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspace: ws, ...policy })
      const r = await runConfined(confined, ws)
      confined.cleanup()
      return { ...r, confined }
    }

    it('denied paths cannot be read directly, listed, through a planted symlink or through /proc/self/root; an allowed one inside can', async () => {
      const { ws, creds, token } = setup()
      const r = await sh(ws, [
        `cat ${creds}/id_rsa`, `ls -a ${creds}`, `cat ${token}`,
        `ln -s ${creds}/id_rsa link && cat link`, `ln -s ${creds} dir && cat dir/id_rsa`,
        `cat /proc/self/root${creds}/id_rsa`, `cat /proc/self/root${token}`, `grep -r SECRET ${path.dirname(creds)}`,
        `ln ${token} hard && cat hard`, `ln ${creds}/id_rsa hard2 && cat hard2`,
        `echo allowed: $(cat ${creds}/public/ok)`,
      ].join('; '), { readDeny: [creds, token], readAllow: [path.join(creds, 'public')] })
      expect(r.stdout).not.toContain('SECRET')
      expect(r.stdout).not.toContain('id_rsa')
      expect(r.stdout).toContain('allowed: public-part')
      expect([...r.confined.hidden].sort()).toEqual([creds, token].sort())
      expect(r.confined.unenforced).not.toContain('read-deny')
      expect(fs.readFileSync(path.join(creds, 'id_rsa'), 'utf8')).toBe('SECRET-KEY') // the host still reads it
    })

    it('a symlink planted before the call beside a denied path, or above it, does not lead back into it', async () => {
      const { ws, out, creds } = setup()
      // Why these: Landlock's rules name inodes, so a rule on either link would be a rule on what it names
      fs.symlinkSync('creds', path.join(out, 'keys'))
      fs.symlinkSync(out, path.join(out, 'up'))
      const r = await sh(ws, `cat ${out}/keys/id_rsa; ls ${out}/keys; cat ${out}/up/creds/id_rsa; cat ${creds}/id_rsa; echo done`, { readDeny: [creds] })
      expect(r.stdout).not.toContain('SECRET')
      expect(r.stdout).not.toContain('id_rsa')
      expect(r.stdout).toContain('done')
      expect(r.confined.hidden).toEqual([creds])
      expect(fs.readFileSync(path.join(creds, 'id_rsa'), 'utf8')).toBe('SECRET-KEY')
    })

    it('by default /etc/shadow is hidden, and the result says so', async () => {
      const ws = tmp('ws')
      const r = await sh(ws, 'cat /etc/shadow; echo "rc=$?"; grep -c root: /etc/shadow')
      expect(r.confined.hidden).toContain('/etc/shadow')
      expect(r.stdout).not.toMatch(/^root:/m)
      expect(fs.readFileSync('/etc/shadow', 'utf8')).toMatch(/^root:/m)
    })

    it('reading the workspace stays free: a denied directory that holds the workspace is not hidden', async () => {
      const { ws } = setup()
      fs.writeFileSync(path.join(ws, 'notes'), 'mine')
      const r = await sh(ws, 'cat notes', { readDeny: [path.dirname(ws)] })
      expect(r.stdout).toBe('mine')
      expect(r.confined.hidden).toEqual([])
    })

    it('a denied path inside the workspace is hidden (bwrap, landlock-ns, Landlock for a caller that can mount) or reported as not enforced (Landlock otherwise)', async () => {
      const ws = tmp('ws')
      fs.writeFileSync(path.join(ws, '.env'), 'SECRET-ENV')
      const r = await sh(ws, 'cat .env; echo', { readDeny: [path.join(ws, '.env')] })
      const probe = sb.service.status().candidates.find((c) => c.name === backend)?.probe?.details as { private_mounts?: boolean } | undefined
      if (backend === 'landlock' && probe?.private_mounts !== true) {
        expect(r.confined.unenforced).toContain('read-deny')
        expect(r.confined.hidden).toEqual([])
        return
      }
      expect(r.stdout).not.toContain('SECRET')
      expect(r.confined.hidden).toEqual([path.join(ws, '.env')])
      expect(fs.readFileSync(path.join(ws, '.env'), 'utf8')).toBe('SECRET-ENV')
    })

    it('documented limit: a hard link made before the call to a denied file stays readable', async () => {
      const { ws, token } = setup()
      fs.linkSync(token, path.join(ws, 'hard'))
      const r = await sh(ws, 'cat hard', { readDeny: [token] })
      expect(r.stdout).toBe('SECRET-TOKEN')
    })

    it('a bad readDeny is refused, naming the entry', async () => {
      const ws = tmp('ws')
      await expect(sb.service.confine(['/bin/true'], { mode: 'read-only', workspace: ws, readDeny: ['../up/path'] })).rejects.toMatchObject({ code: 'INVALID_POLICY', message: expect.stringContaining('readDeny[0] must be absolute, start with ~/, or be relative to the workspace without ".." parts') })
      await expect(sb.service.confine(['/bin/true'], { mode: 'read-only', workspace: ws, readDeny: ['./**/*.pem'] })).rejects.toMatchObject({ code: 'INVALID_POLICY', message: expect.stringContaining('readDeny[0] is a pattern') })
    })
  })
}
