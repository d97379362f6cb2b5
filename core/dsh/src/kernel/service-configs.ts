/**
 * The services' configs checked before any service is plugged, at start and at a reload: a bad
 * `sandbox` section (a `readDeny` entry that is not a path, a host pattern that is not one, …) is
 * then one INVALID_CONFIG naming the key and the value — with the file, line and excerpt when it
 * came from a dsh.yml — instead of a service that failed inside cordis (its error logged to
 * stdout, the plugins that need it waiting for it).
 */
import { KernelError } from '@dsh/kernel'
import { checkSandboxConfig } from '@dsh/sandbox'
import type { ConfigFile } from '../config/file.js'
import type { KernelOptions } from './options.js'

/** `sandbox.network.allow[0]` → `['sandbox', 'network', 'allow', '0']`. */
function segments(path: string): string[] {
  return path.split(/[.[\]]+/).filter(Boolean)
}

/** Throws the services' first config error, located in `file` where the options came from one. */
export function checkServiceConfigs(options: KernelOptions, file: ConfigFile | undefined): void {
  try {
    checkSandboxConfig((options.sandbox ?? {}) as Parameters<typeof checkSandboxConfig>[0])
  } catch (error) {
    if (!file || !KernelError.is(error, 'INVALID_CONFIG')) throw error
    const path = typeof error.details?.path === 'string' && error.details.path ? error.details.path : 'sandbox'
    // a key given on the command line, not in the file, still names the file's nearest key
    throw new KernelError('INVALID_CONFIG', file.describe(segments(path), error.message), { cause: error, details: { ...error.details, file: file.path } })
  }
}
