/**
 * The real clients, installed from npm at pinned versions into a cache outside the repository
 * (`$DSH_TEST_CLIENTS`, default ~/.cache/dsh-test-clients) on first use — never dependencies of
 * our packages. An install goes to a directory of its own and is renamed into place, so two
 * test files installing at once both end with a whole copy.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const CLIENTS = {
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
} as const

export type ClientName = keyof typeof CLIENTS

export const CACHE = process.env.DSH_TEST_CLIENTS ?? join(homedir(), '.cache', 'dsh-test-clients')

export interface Installed {
  /** the directory holding the client's program (put it first on PATH) */
  binDir: string
  /** the program */
  bin: string
}

/** The installed client, or the one line saying why it cannot be had. */
export function installClient(name: ClientName): Installed | string {
  const { pkg, version, bin } = CLIENTS[name]
  const dir = join(CACHE, `${name}-${version}`)
  const binDir = join(dir, 'node_modules', '.bin')
  if (existsSync(join(dir, '.complete'))) return { binDir, bin: join(binDir, bin) }
  mkdirSync(CACHE, { recursive: true })
  const building = `${dir}.building-${process.pid}`
  rmSync(building, { recursive: true, force: true })
  mkdirSync(building, { recursive: true })
  const run = spawnSync('npm', ['install', '--prefix', building, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${pkg}@${version}`], { encoding: 'utf8', timeout: 240_000 })
  if (run.status !== 0) {
    rmSync(building, { recursive: true, force: true })
    return `${pkg}@${version} could not be installed from npm (${(run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n').slice(-1)[0]})`
  }
  const check = spawnSync(join(building, 'node_modules', '.bin', bin), ['--version'], { encoding: 'utf8', timeout: 30_000 })
  if (check.status !== 0) {
    rmSync(building, { recursive: true, force: true })
    return `${pkg}@${version} was installed but does not run on this machine (${(check.stderr || check.error?.message || '').trim().split('\n')[0]})`
  }
  spawnSync('touch', [join(building, '.complete')])
  try {
    renameSync(building, dir)
  } catch {
    // another test file put its copy in place first
    rmSync(building, { recursive: true, force: true })
  }
  return { binDir, bin: join(binDir, bin) }
}
