// The launcher @dsh/sandbox ships: found beside the package, trusted only when
// the binary and its manifest pass the ownership checks and the binary is the
// build the manifest records. Every way to get that wrong is refused, and the
// providers fail closed on the refusal.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bundledLauncher, DEFAULT_LIMITS, PROTECTED_NAMES, landlockProvider, launcherDir, launcherTarget } from '@dsh/sandbox'

const built = path.resolve(import.meta.dirname, '../../native/landlock-run/landlock-run')
const target = launcherTarget()
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** A native/ directory like the package's: the real binary for this target and a manifest naming it. */
function nativeDir(manifest?: (sha256: string) => unknown): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-native-')))
  dirs.push(dir)
  fs.mkdirSync(path.join(dir, target))
  fs.copyFileSync(built, path.join(dir, target, 'landlock-run'))
  fs.chmodSync(path.join(dir, target, 'landlock-run'), 0o755)
  const sha256 = createHash('sha256').update(fs.readFileSync(built)).digest('hex')
  const content = manifest ? manifest(sha256) : { launchers: { [target]: { path: `${target}/landlock-run`, sha256 } } }
  fs.writeFileSync(path.join(dir, 'manifest.json'), typeof content === 'string' ? content : JSON.stringify(content))
  return dir
}

describe.skipIf(process.platform !== 'linux')('the bundled launcher', () => {
  it('the package\'s own native/ holds this machine\'s build, which the manifest vouches for', () => {
    const found = bundledLauncher() as { path?: string }
    expect(found).toEqual({ path: fs.realpathSync(path.join(launcherDir(), target, 'landlock-run')) })
    const manifest = JSON.parse(fs.readFileSync(path.join(launcherDir(), 'manifest.json'), 'utf8'))
    expect(manifest.launchers[target].sha256).toBe(createHash('sha256').update(fs.readFileSync(found.path!)).digest('hex'))
  })

  it('a directory laid out like the package\'s is trusted', () => {
    const dir = nativeDir()
    expect(bundledLauncher(dir, target)).toEqual({ path: path.join(dir, target, 'landlock-run') })
  })

  it('no binary for the platform: the reason names the platform and what the package has', () => {
    const dir = nativeDir()
    expect(bundledLauncher(dir, 'linux-s390x')).toEqual({ reason: `no landlock-run binary for linux-s390x in ${dir} (this package has ${target})` })
  })

  it('a binary changed after the build (one byte appended) is not the recorded build', () => {
    const dir = nativeDir()
    fs.appendFileSync(path.join(dir, target, 'landlock-run'), '\0')
    expect((bundledLauncher(dir, target) as { reason: string }).reason).toMatch(/is not the build .*manifest\.json records \(SHA-256 [0-9a-f]{12}…, expected [0-9a-f]{12}…\)/)
  })

  it('a binary or manifest others may write, or owned by another user, is refused', () => {
    const cases: Array<[string, (dir: string) => void, RegExp]> = [
      ['group-writable binary', (dir) => fs.chmodSync(path.join(dir, target, 'landlock-run'), 0o775), /landlock-run is writable by group or others/],
      ['world-writable manifest', (dir) => fs.chmodSync(path.join(dir, 'manifest.json'), 0o666), /manifest\.json is writable by group or others/],
      ['world-writable directory', (dir) => fs.chmodSync(path.join(dir, target), 0o777), new RegExp(`${target} is writable by group or others`)],
    ]
    if (process.getuid?.() === 0) cases.push(['binary owned by another user', (dir) => fs.chownSync(path.join(dir, target, 'landlock-run'), 4242, 4242), /is owned by uid 4242/])
    for (const [what, spoil, reason] of cases) {
      const dir = nativeDir()
      spoil(dir)
      expect((bundledLauncher(dir, target) as { reason: string }).reason, what).toMatch(reason)
    }
  })

  it('a manifest that is missing, not JSON, or names a path outside native/ is refused', () => {
    const missing = nativeDir()
    fs.rmSync(path.join(missing, 'manifest.json'))
    expect(bundledLauncher(missing, target)).toEqual({ reason: `${path.join(missing, 'manifest.json')} does not exist (in a checkout, npm run build writes it)` })
    expect((bundledLauncher(nativeDir(() => '{"launchers":'), target) as { reason: string }).reason).toMatch(/manifest\.json: .*JSON/)
    expect((bundledLauncher(nativeDir(() => ({})), target) as { reason: string }).reason).toMatch(/expected an object "launchers"/)
    const escape = nativeDir((sha256) => ({ launchers: { [target]: { path: '../../usr/bin/true', sha256 } } }))
    expect((bundledLauncher(escape, target) as { reason: string }).reason).toMatch(new RegExp(`launchers\\.${target}\\.path must be "${target}/landlock-run"`))
    const proto = nativeDir((sha256) => `{"launchers":{"__proto__":{"path":"${target}/landlock-run","sha256":"${sha256}"}}}`)
    expect((bundledLauncher(proto, '__proto__') as { reason: string }).reason).toMatch(/path must be "__proto__\/landlock-run"/)
    expect((bundledLauncher(proto, 'constructor') as { reason: string }).reason).toMatch(/no landlock-run binary for constructor/)
  })

  it('a provider given a launcher that is refused is unavailable, and confining with it throws', async () => {
    const dir = nativeDir()
    fs.chmodSync(path.join(dir, target, 'landlock-run'), 0o777)
    const provider = landlockProvider({ launcher: path.join(dir, target, 'landlock-run') })
    expect(await provider.probe()).toMatchObject({ available: false, reason: expect.stringMatching(/writable by group or others/) })
    expect(() => provider.confine(['/bin/true'], { mode: 'read-only', workspace: '/', writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES })).toThrow(/before a successful probe/)
  })
})
