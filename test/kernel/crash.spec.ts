import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '@dsh/kernel'

const childScript = join(import.meta.dirname, '../fixtures/append-child.mjs')

describe('a session log survives SIGKILL', () => {
  it('recovers every append that completed before the kill', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-crash-'))
    let proc: ReturnType<typeof spawn> | undefined
    try {
      const child = spawn(process.execPath, [childScript, dir, 'crash'], { stdio: ['ignore', 'pipe', 'inherit'] })
      proc = child
      const completed: number[] = []
      let buffer = ''
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject)
        child.stdout.on('data', (chunk) => {
          buffer += chunk
          const lines = buffer.split('\n')
          buffer = lines.pop()!
          completed.push(...lines.map(Number))
          if (completed.length >= 300 && !child.killed) {
            child.kill('SIGKILL')
            resolve()
          }
        })
      })
      await new Promise((resolve) => child.on('exit', resolve))
      const reopened = new Session(dir, { id: 'crash' })
      // Why the file, not events(): the child may append far more than the memory window keeps
      // (RECENT_EVENTS) before the kill lands on a loaded machine; the file holds every line
      const inFile = readFileSync(reopened.path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).seq as number)
      const seqs = new Set(inFile)
      for (const seq of completed) expect(seqs.has(seq)).toBe(true)
      // the recovered log is well-formed: strictly increasing seqs from 1, no holes
      expect(inFile).toEqual(Array.from({ length: inFile.length }, (_, i) => i + 1))
      // the window is the log's tail, in order
      const list = reopened.events().map((e) => e.seq)
      expect(list.length).toBeGreaterThan(0)
      expect(list).toEqual(inFile.slice(inFile.length - list.length))
      // and it keeps working
      const next = await reopened.append('turn/end', { turn: 0 })
      expect(next.seq).toBe(inFile.length + 1)
      reopened.close()
      expect(readFileSync(reopened.path, 'utf8').endsWith('\n')).toBe(true)
    } finally {
      // never leave the writer running, whatever failed above
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
    // a child node process under a loaded CI machine can take seconds to start
  }, 90_000)
})
