// landlock-run --slot on the real binary: the command comes on fd 3 once everything is in place,
// and anything but a whole, well-formed command there ends the launcher (125) without exec.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const dir = path.resolve(fileURLToPath(import.meta.url), '../../../native/landlock-run')
const bin = path.join(dir, 'landlock-run')

function usable(): string | undefined {
  if (process.platform !== 'linux') return 'Landlock is Linux only'
  const make = spawnSync('make', ['-s', '-C', dir], { encoding: 'utf8' })
  if (make.status !== 0) throw new Error(`make -C ${dir} failed:\n${make.stderr}`)
  const probe = spawnSync(bin, ['--probe'], { encoding: 'utf8' })
  return probe.status === 0 ? undefined : probe.stderr.trim()
}
const why = usable()
if (why) console.warn(`skipping landlock-run --slot tests: ${why}`)

const temps: string[] = []
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
function workspace(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-slot-run-')))
  temps.push(d)
  return d
}

const rules = (ws: string) => ['--env', 'PATH=/usr/bin:/bin', '--ro', '/usr', '--ro', '/etc', '--ro', '/proc', '--rw', '/dev/null', '--rw', ws]

interface Ran { code: number | null; stdout: string; stderr: string }

/** Start the launcher with fd 3 a socket, write `payload` there (or nothing) and close it. */
function slot(args: string[], ws: string, payload: Buffer | string | undefined): Promise<Ran> {
  const child = spawn(bin, args, { cwd: ws, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: {} })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const fd3 = child.stdio[3] as NodeJS.WritableStream & { on(e: 'error', f: () => void): void }
  fd3.on('error', () => {})
  fd3.end(payload ?? '')
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

describe.skipIf(why !== undefined)('landlock-run --slot', () => {
  it('runs the command fd 3 brings, confined, with fd 3 closed before its exec', async () => {
    const ws = workspace()
    const r = await slot([...rules(ws), '--slot', '--'], ws, '/bin/sh\0-c\0echo "$0 $1"; ls /proc/self/fd | tr "\\n" " "; echo; echo x > /etc/dsh-slot-probe || echo refused\0name\0arg\0')
    expect(r.code).toBe(0)
    const [first, fds, last] = r.stdout.trim().split('\n')
    expect(first).toBe('name arg')
    // 0-2, and ls's own directory
    expect(fds.trim().split(' ').map(Number).filter((fd) => fd > 2).length).toBeLessThanOrEqual(1)
    expect(last).toBe('refused')
    expect(fs.existsSync('/etc/dsh-slot-probe')).toBe(false)
  })

  it.each([
    ['nothing (fd 3 closed empty)', '', /no command came/],
    ['an argument without its NUL', '/bin/sh\0-c\0touch MARK', /not NUL-terminated/],
    ['an empty argv[0]', '\0-c\0touch MARK\0', /argv\[0\] is empty/],
  ])('%s: exit 125, nothing run', async (_, payload, said) => {
    const ws = workspace()
    const r = await slot([...rules(ws), '--slot', '--'], ws, payload)
    expect(r.code).toBe(125)
    expect(r.stderr).toMatch(said)
    expect(fs.readdirSync(ws)).toEqual([])
  })

  it('a command longer than 1 MiB: exit 125, nothing run', async () => {
    const ws = workspace()
    const r = await slot([...rules(ws), '--slot', '--'], ws, Buffer.concat([Buffer.from('/bin/sh\0-c\0touch MARK\0'), Buffer.alloc((1 << 20) + 1, 0x61), Buffer.from('\0')]))
    expect(r.code).toBe(125)
    expect(r.stderr).toMatch(/longer than/)
    expect(fs.readdirSync(ws)).toEqual([])
  })

  it('a command after "--" as well is refused, and so is --slot with --exec-notify', async () => {
    const ws = workspace()
    const after = await slot([...rules(ws), '--slot', '--', '/bin/sh', '-c', 'touch MARK'], ws, '/bin/sh\0-c\0touch MARK2\0')
    expect(after.code).toBe(125)
    expect(after.stderr).toMatch(/not after '--'/)
    const notify = await slot([...rules(ws), '--exec-notify', path.join(ws, 'sock'), '--slot', '--'], ws, '/bin/true\0')
    expect(notify.code).toBe(125)
    expect(notify.stderr).toMatch(/excludes --exec-notify/)
    expect(fs.readdirSync(ws)).toEqual([])
  })

  it('fd 3 a file, or closed: refused before anything is built', () => {
    const ws = workspace()
    const file = path.join(ws, 'command')
    fs.writeFileSync(file, '/bin/sh\0-c\0touch MARK\0')
    const fd = fs.openSync(file, 'r')
    try {
      const asFile = spawnSync(bin, [...rules(ws), '--slot', '--'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe', fd], encoding: 'utf8' })
      expect(asFile.status).toBe(125)
      expect(asFile.stderr).toMatch(/neither a pipe nor a socket/)
    } finally {
      fs.closeSync(fd)
    }
    const closed = spawnSync(bin, [...rules(ws), '--slot', '--'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
    expect(closed.status).toBe(125)
    expect(closed.stderr).toMatch(/fd 3 is not open/)
    expect(fs.readdirSync(ws)).toEqual(['command'])
  })
})
