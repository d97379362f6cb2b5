/**
 * Running the built `dsh` CLI as a child process, the way the e2e specs do:
 * stdin a pipe (no terminal, so nobody can answer an approval), stdout and
 * stderr collected; and waiting for the exit code a tmux-driven run writes.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { dshEnv } from '../cache-home.js'

// the command users run: bin/dsh.cjs (the package's bin), which runs the bundle (dist/) the build made
export const CLI = join(import.meta.dirname, '../../core/dsh/bin/dsh.cjs')

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

export function runCli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: dshEnv({ NO_COLOR: '', ...env }) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdin.end()
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The exit code a command run in tmux wrote to `file` (`…; echo $? > file`); the error shows the screen. */
export async function exitCodeIn(file: string, screen: () => string, ms = 15_000): Promise<number> {
  const deadline = Date.now() + ms
  while (!existsSync(file) || !readFileSync(file, 'utf8').trim()) {
    if (Date.now() > deadline) throw new Error(`dsh exec did not finish; the screen:\n${screen()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return Number(readFileSync(file, 'utf8').trim())
}
