/**
 * The Landlock launcher this package ships: `native/<platform>-<arch>/landlock-run`
 * beside `lib/` and `src/`, listed in `native/manifest.json` with its SHA-256
 * (written by scripts/build-launcher.js: the root build in a checkout, prepack
 * for the tarball). Found relative to this package only — never through PATH or
 * an environment variable — and trusted only when the binary and the manifest
 * pass the same ownership checks as a system binary and the binary's hash is
 * the one recorded. Anything else is a reason, and the backend is unavailable.
 */
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeError } from '@dsh/kernel'
import { distrust, type Found } from './binaries.js'

/** This package's `native/` directory, relative to this file in src/ or lib/. */
export function launcherDir(): string {
  return fileURLToPath(new URL('../../native', import.meta.url))
}

/** `linux-x64`, `linux-arm64`: the name of this machine's launcher build. */
export function launcherTarget(): string {
  return `${process.platform}-${process.arch}`
}

interface ManifestEntry {
  path: string
  sha256: string
}

function readManifest(dir: string): Record<string, unknown> | string {
  const file = join(dir, 'manifest.json')
  let real: string
  try {
    real = realpathSync(file)
  } catch {
    return `${file} does not exist (in a checkout, npm run build writes it)`
  }
  // Why: whoever can rewrite the manifest chooses which binary's hash is "expected"
  const why = distrust(real, false)
  if (why) return why
  try {
    const parsed = JSON.parse(readFileSync(real, 'utf8')) as { launchers?: unknown }
    if (!parsed || typeof parsed.launchers !== 'object' || parsed.launchers === null) return `${file}: expected an object "launchers"`
    return parsed.launchers as Record<string, unknown>
  } catch (error) {
    return `${file}: ${describeError(error)}`
  }
}

function entryOf(launchers: Record<string, unknown>, target: string, dir: string): ManifestEntry | string {
  const entry = Object.hasOwn(launchers, target) ? launchers[target] as Partial<ManifestEntry> : undefined
  if (!entry) {
    const have = Object.keys(launchers)
    return `no landlock-run binary for ${target} in ${dir} (this package has ${have.length ? have.join(', ') : 'none'})`
  }
  // Why: a path from the manifest must stay inside native/
  if (typeof entry.path !== 'string' || entry.path !== `${target}/landlock-run`) return `${join(dir, 'manifest.json')}: launchers.${target}.path must be "${target}/landlock-run"`
  if (typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) return `${join(dir, 'manifest.json')}: launchers.${target}.sha256 must be a SHA-256 in hex`
  return entry as ManifestEntry
}

/** The real path of this package's launcher for `target`, checked; or why there is none to trust. */
export function bundledLauncher(dir: string = launcherDir(), target: string = launcherTarget()): Found {
  const launchers = readManifest(dir)
  if (typeof launchers === 'string') return { reason: launchers }
  const entry = entryOf(launchers, target, dir)
  if (typeof entry === 'string') return { reason: entry }
  const file = join(dir, entry.path)
  let real: string
  try {
    real = realpathSync(file)
  } catch {
    return { reason: `${file} does not exist, though ${join(dir, 'manifest.json')} lists it` }
  }
  const why = distrust(real)
  if (why) return { reason: why }
  let sha256: string
  try {
    sha256 = createHash('sha256').update(readFileSync(real)).digest('hex')
  } catch (error) {
    return { reason: `${real}: ${describeError(error)}` }
  }
  // Why: a binary swapped or rebuilt behind the manifest's back is not the build this package vouches for
  if (sha256 !== entry.sha256) return { reason: `${real} is not the build ${join(dir, 'manifest.json')} records (SHA-256 ${sha256.slice(0, 12)}…, expected ${entry.sha256.slice(0, 12)}…)` }
  return { path: real }
}
