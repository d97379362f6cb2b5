// landlock-run's --inode PATH DEV:INO and O_NOFOLLOW: every path the launcher
// opens by name (a --ro/--rw rule, a --mount-rw/--mount-ro source, --chdir)
// must be what the host resolved. A path swapped for a link is refused, one
// swapped for another directory is refused by its inode, and a swap racing
// the launches (a host loop flipping a writable root between itself and a
// link out) never lets a write land outside. The per-backend attack through
// the real providers is test/adversarial/resolved-swap.ts.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const bin = path.resolve(fileURLToPath(import.meta.url), '../../../native/landlock-run/landlock-run')
const usable = process.platform === 'linux' && fs.existsSync(bin) && spawnSync(bin, ['--probe']).status === 0
if (!usable) console.warn('skipping landlock-run --inode: the launcher does not run here')
// (from /: the new root has a /tmp of its own, so a checkout under /tmp as the working directory
// would fail the start and skip the test on a machine that can make the namespaces)
const namespacesProbe = () => spawnSync(bin, ['--namespaces', '--ro', '/', '--', '/bin/true'], { cwd: '/', encoding: 'utf8' })
const namespaces = usable && namespacesProbe().status === 0
if (usable && !namespaces) console.warn(`skipping landlock-run --inode --namespaces: ${namespacesProbe().stderr.trim()}`)

// By real path: the launcher refuses a rule on a symbolic link (/bin -> usr/bin where /usr is merged)
const BASE = [...new Set(['/usr', '/lib', '/lib64', '/bin', '/etc', '/proc'].filter((p) => fs.existsSync(p)).map((p) => fs.realpathSync(p)))].flatMap((p) => ['--ro', p])

const temps: string[] = []
function tmp(prefix: string, base = os.tmpdir()): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(base, `dsh-identity-${prefix}-`)))
  temps.push(d)
  return d
}
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const id = (p: string) => {
  const st = fs.lstatSync(p, { bigint: true })
  return `${st.dev}:${st.ino}`
}

interface Run { code: number | null; stdout: string; stderr: string }

function run(args: string[], timeoutMs = 10_000): Promise<Run> {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d))
  child.stderr.on('data', (d: Buffer) => (stderr += d))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** `ws/root`, a writable root whose parent the "concurrent call" writes, and a directory outside it. */
function layout() {
  const parent = tmp('parent')
  const root = path.join(parent, 'root')
  fs.mkdirSync(root)
  return { root, outside: tmp('outside', fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir()), resolved: id(root) }
}

describe.skipIf(!usable)('landlock-run --inode', () => {
  it('refuses a malformed --inode, naming the argument', async () => {
    for (const [args, message] of [
      [['--inode', 'rel', '1:2'], "--inode wants an absolute path, got 'rel'"],
      [['--inode', '/x', '12'], "--inode /x wants DEV:INO (decimal numbers), got '12'"],
      [['--inode', '/x', '1:-2'], "--inode /x wants DEV:INO (decimal numbers), got '1:-2'"],
      [['--inode', '/x'], "--inode /x wants DEV:INO (decimal numbers), got '--'"],
    ] as const) {
      const r = await run([...args, '--', '/bin/true'])
      expect(r.code).toBe(125)
      expect(r.stderr).toContain(message)
    }
  })

  it('the inode the host resolved: the rule is made and the command runs', async () => {
    const { root, resolved } = layout()
    const r = await run([...BASE, '--inode', root, resolved, '--rw', root, '--', '/bin/sh', '-c', `echo ok > ${root}/f && echo ran`])
    expect(r.stdout).toBe('ran\n')
    expect(fs.readFileSync(path.join(root, 'f'), 'utf8')).toBe('ok\n')
  })

  it('a rule path swapped for a link is refused even without --inode (O_NOFOLLOW); with it, another directory is refused too', async () => {
    const { root, outside, resolved } = layout()
    fs.renameSync(root, `${root}.moved`)
    fs.symlinkSync(outside, root)
    for (const extra of [[], ['--inode', root, resolved]]) {
      const r = await run([...BASE, ...extra, '--rw', root, '--', '/bin/sh', '-c', `echo planted > ${root}/f; echo ran`])
      expect(r.code).toBe(125)
      expect(r.stderr).toContain(`${root} is a symbolic link now`)
    }
    fs.unlinkSync(root)
    fs.mkdirSync(root)
    const r = await run([...BASE, '--inode', root, resolved, '--rw', root, '--', '/bin/sh', '-c', `echo planted > ${root}/f; echo ran`])
    expect(r.code).toBe(125)
    expect(r.stderr).toContain(`${root} is not the directory the host resolved`)
    expect(r.stdout).toBe('')
    expect(fs.readdirSync(outside)).toEqual([])
    expect(fs.readdirSync(root)).toEqual([])
  })

  it.skipIf(!namespaces)('--namespaces: a --mount-rw source and the --chdir directory swapped since they were resolved are refused', async () => {
    const { root, outside, resolved } = layout()
    const args = ['--namespaces', '--chdir', root, '--inode', root, resolved, '--mount-rw', root, '--ro', '/', '--rw', root, '--', '/bin/sh', '-c', 'echo planted > f; echo ran']
    fs.renameSync(root, `${root}.moved`)
    fs.symlinkSync(outside, root)
    let r = await run(args)
    expect(r.code).toBe(125)
    expect(r.stderr).toMatch(/symbolic link|not the directory the host resolved/)
    fs.unlinkSync(root)
    fs.mkdirSync(root)
    r = await run(args)
    expect(r.code).toBe(125)
    expect(r.stderr).toContain('not the directory the host resolved')
    expect(r.stdout).toBe('')
    expect(fs.readdirSync(outside)).toEqual([])
    expect(fs.readdirSync(root)).toEqual([])
  })

  it('a swap racing the launches (bounded: 80 launches or 10 s): no write ever lands outside, and the swapped ones are refused', async () => {
    const { root, outside, resolved } = layout()
    // the "concurrent call": flips root between the directory and a link out, as fast as it can
    const flipper = spawn('/bin/sh', ['-c', `while :; do mv ${root} ${root}.real && ln -s ${outside} ${root} && rm ${root} && mv ${root}.real ${root}; done`], { stdio: 'ignore', detached: true })
    const outcomes = { ran: 0, refused: 0 }
    try {
      for (let i = 0, end = Date.now() + 10_000; i < 80 && Date.now() < end; i++) {
        const r = await run([...BASE, '--inode', root, resolved, '--rw', root, '--', '/bin/sh', '-c', `echo planted > ${root}/f 2>/dev/null; echo ran`])
        if (r.code === 125) {
          // refused at the open: absent (mid-flip), a link, or (never) another inode
          expect(r.stderr).toMatch(/is a symbolic link now|cannot open --rw .*No such file|not the directory the host resolved/)
          outcomes.refused++
        } else {
          expect(r.code).toBe(0)
          outcomes.ran++
        }
        expect(fs.readdirSync(outside)).toEqual([])
      }
    } finally {
      process.kill(-flipper.pid!, 'SIGKILL')
    }
    expect(outcomes.refused).toBeGreaterThan(0)
    expect(fs.readdirSync(outside)).toEqual([])
  }, 30_000)
})
