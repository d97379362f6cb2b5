/**
 * The session lock: one process at a time on a session log. A second locker
 * is refused naming the session and the holder's pid; a lock left by a dead
 * process is taken over; a lock that names no pid is stale once it is a second old; release removes
 * only our own lock. The holders are real processes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
// the session lock is private to dsh's CLI: tested here on purpose
import { pidAlive } from '@dsh/kernel'
import { lockSession, SessionLockedError } from '../../core/dsh/src/sessions/lock.js'

const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function logPath(id = 's1'): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-lock-'))
  dirs.push(dir)
  return join(dir, `${id}.jsonl`)
}

/** A dead pid: a process that ran and was reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  const pid = Number(child.stdout)
  expect(pidAlive(pid)).toBe(false)
  return pid
}

describe('lockSession', () => {
  it('a second locker is refused naming the session and the live holder; release frees it', () => {
    const path = logPath()
    const lock = lockSession('s1', path)
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`)
    let error: unknown
    try {
      lockSession('s1', path)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(SessionLockedError)
    expect((error as Error).message).toMatch(/session "s1" is in use by this process/)
    lock.release()
    expect(existsSync(lock.path)).toBe(false)
    lockSession('s1', path).release()
  })

  it('a lock held by another live process is refused with its pid', async () => {
    const path = logPath()
    const lockFile = path.replace(/\.jsonl$/, '.lock')
    const holder = spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(lockFile)}, process.pid + '\\n', { flag: 'wx' }); setInterval(() => {}, 1000)`], { stdio: 'ignore' })
    children.push(holder)
    for (let i = 0; i < 300 && !existsSync(lockFile); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(() => lockSession('s1', path)).toThrow(new RegExp(`in use by process ${holder.pid} \\(lock file`))
    holder.kill('SIGKILL')
    await new Promise((resolve) => holder.once('exit', resolve))
    // the holder died without releasing: its lock is stale and is taken over
    const lock = lockSession('s1', path)
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
  })

  it('a stale lock (dead pid, or no pid at all) is taken over; release leaves a lock that is not ours alone', () => {
    const path = logPath()
    const lockFile = path.replace(/\.jsonl$/, '.lock')
    writeFileSync(lockFile, `${deadPid()}\n`)
    const lock = lockSession('s1', path)
    lock.release()
    // a lock naming no pid: being written by a holder while it is young, stale once older than a second
    writeFileSync(lockFile, 'garbage')
    // young however long the machine stalls before the next line: its time is a minute ahead
    const ahead = new Date(Date.now() + 60_000)
    utimesSync(lockFile, ahead, ahead)
    expect(() => lockSession('s1', path)).toThrow(/is being locked by another process/)
    expect(readFileSync(lockFile, 'utf8')).toBe('garbage')
    const past = new Date(Date.now() - 5_000)
    utimesSync(lockFile, past, past)
    const again = lockSession('s1', path)
    // someone replaced our lock (by hand): release must not remove theirs
    writeFileSync(lockFile, '1\n')
    again.release()
    expect(readFileSync(lockFile, 'utf8')).toBe('1\n')
    // pid 1 is alive: refused
    expect(() => lockSession('s1', path)).toThrow(/in use by process 1 /)
  })
})
