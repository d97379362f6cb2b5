/**
 * The Windows slot of the chain. No backend is implemented: the probe says
 * so, and with nothing available every confined call on win32 is refused
 * (SANDBOX_UNAVAILABLE) rather than run unconfined.
 */
import type { ProbeResult, ProviderConfined, SandboxProvider } from '../types.js'

export function windowsAclProvider(): SandboxProvider {
  return {
    name: 'windows-acl',
    platforms: ['win32'],
    async probe(): Promise<ProbeResult> {
      return { available: false, reason: 'not implemented: dsh has no Windows confinement yet, so confined commands are refused on win32' }
    },
    confine(): ProviderConfined {
      throw new Error('windows-acl has no implementation')
    },
  }
}
