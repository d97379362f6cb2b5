/**
 * The local provider chain, by platform (docs/decisions/2026-11-30-sandbox-chain.md):
 * linux bwrap, then the launcher's own namespaces (landlock-ns), then plain
 * landlock; darwin seatbelt; win32 windows-acl. A host may
 * narrow or reorder it (`backends`); a backend of another platform is kept
 * in the list and reported as not for this platform.
 */
import { bwrapProvider } from './bwrap.js'
import { landlockProvider } from './landlock.js'
import { landlockNsProvider } from './landlock-ns.js'
import { seatbeltProvider } from './seatbelt.js'
import { windowsAclProvider } from './windows-acl.js'
import type { SandboxProvider } from '../types.js'

export type LocalBackend = 'bwrap' | 'landlock-ns' | 'landlock' | 'seatbelt' | 'windows-acl'

export const LOCAL_BACKENDS: readonly LocalBackend[] = ['bwrap', 'landlock-ns', 'landlock', 'seatbelt', 'windows-acl']

const CHAINS: Partial<Record<NodeJS.Platform, LocalBackend[]>> = {
  linux: ['bwrap', 'landlock-ns', 'landlock'],
  darwin: ['seatbelt'],
  win32: ['windows-acl'],
}

const FACTORIES: Record<LocalBackend, () => SandboxProvider> = {
  bwrap: () => bwrapProvider(),
  'landlock-ns': () => landlockNsProvider(),
  landlock: () => landlockProvider(),
  seatbelt: () => seatbeltProvider(),
  'windows-acl': () => windowsAclProvider(),
}

export function localProviders(platform: NodeJS.Platform, backends?: readonly LocalBackend[]): SandboxProvider[] {
  return (backends ?? CHAINS[platform] ?? []).map((name) => FACTORIES[name]())
}
