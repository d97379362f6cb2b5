/**
 * The macOS backend: `sandbox-exec` with a generated SBPL profile. Paths go
 * in as parameters (`-D NAME=path`, read with `(param "NAME")`), never
 * spliced into the profile text, so no path can change the profile's
 * meaning. Writable roots are written with `require-not` carve-outs for the
 * protected names, which Seatbelt matches whether or not they exist, so a
 * missing `.git` cannot be created either. It only runs on darwin; the text
 * is unit-tested everywhere.
 */
import { checkBinary } from '../probe/binaries.js'
import { confinedEnv } from '../policy/env.js'
import { probeReadOnlyWrite } from '../probe/profile.js'
import { isInside } from '../paths.js'
import { policyProtected } from '../protected/entries.js'
import type { ProbeResult, ProviderConfined, ResolvedPolicy, SandboxProvider } from '../types.js'

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec'

export interface SeatbeltProfile {
  /** the SBPL text */
  profile: string
  /** parameter name → path */
  params: Record<string, string>
}

const BASE = [
  '(version 1)',
  '(deny default)',
  '(allow process-exec)',
  '(allow process-fork)',
  '(allow signal (target same-sandbox))',
  '(allow process-info* (target same-sandbox))',
  '(allow sysctl-read)',
  '(allow file-read*)',
  '(allow file-write-data (literal "/dev/null"))',
  '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))',
]

export function seatbeltProfile(policy: ResolvedPolicy): SeatbeltProfile {
  const lines = [...BASE]
  const params: Record<string, string> = {}
  if (policy.mode === 'workspace-write') {
    policy.writableRoots.forEach((root, i) => {
      params[`WRITABLE_ROOT_${i}`] = root
      const carveOuts = policyProtected(policy).paths.filter((path) => isInside(root, path)).map((path, j) => {
        params[`WRITABLE_ROOT_${i}_PROTECTED_${j}`] = path
        return `(require-not (subpath (param "WRITABLE_ROOT_${i}_PROTECTED_${j}")))`
      })
      lines.push(`(allow file-write* (require-all (subpath (param "WRITABLE_ROOT_${i}")) ${carveOuts.join(' ')}))`)
    })
  }
  if (policy.network === 'on') lines.push('(allow network-outbound)', '(allow network-inbound)', '(allow system-socket)')
  return { profile: lines.join('\n') + '\n', params }
}

export function seatbeltArgs(argv: readonly string[], policy: ResolvedPolicy): string[] {
  const { profile, params } = seatbeltProfile(policy)
  const defines = Object.entries(params).map(([name, path]) => `-D${name}=${path}`)
  const env = Object.entries(confinedEnv(policy)).map(([name, value]) => `${name}=${value}`)
  // Why env -i inside the profile: sandbox-exec passes on the environment it was spawned with
  return [SANDBOX_EXEC, '-p', profile, ...defines, '--', '/usr/bin/env', '-i', ...env, ...argv]
}

export function seatbeltUnenforced(policy: ResolvedPolicy): string[] {
  return policy.network === 'on' ? ['pathname-unix-sockets'] : []
}

export function seatbeltProvider(): SandboxProvider {
  let ready = false
  return {
    name: 'seatbelt',
    platforms: ['darwin'],
    async probe(): Promise<ProbeResult> {
      const found = checkBinary(SANDBOX_EXEC)
      if ('reason' in found) return { available: false, reason: found.reason }
      const write = await probeReadOnlyWrite('seatbelt', seatbeltArgs)
      ready = write.available
      return { available: write.available, reason: write.reason, path: found.path }
    },
    confine(argv, policy): ProviderConfined {
      if (!ready) throw new Error('seatbelt provider used before a successful probe')
      const unenforced = seatbeltUnenforced(policy)
      return { argv: seatbeltArgs(argv, policy), enforcement: unenforced.length ? 'partial' : 'full', unenforced }
    },
  }
}
