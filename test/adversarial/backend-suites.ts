// Every suite a backend is attacked with, in one list: the one-shot specs
// (sandbox-<backend>.spec.ts) and the slot specs (sandbox-<backend>-slots.spec.ts)
// run the same attacks.
import type { LocalBackend } from '@dsh/sandbox'
import { attackSuite } from './attacks.js'
import { holesSuite } from './holes.js'
import { limitsSuite } from './limits.js'
import { namespaceSuite } from './namespace-only.js'
import { protectedPathsSuite } from './protected-paths.js'
import { protectedRenamesSuite } from './protected-renames.js'
import { readOnlyPathsSuite } from './read-only-paths.js'
import { readDenySuite } from './read-deny.js'
import { resolvedSwapSuite } from './resolved-swap.js'

export async function backendSuites(backend: LocalBackend): Promise<void> {
  await attackSuite(backend)
  await holesSuite(backend)
  await limitsSuite(backend)
  await namespaceSuite(backend)
  await readDenySuite(backend)
  await protectedPathsSuite(backend)
  await protectedRenamesSuite(backend)
  await readOnlyPathsSuite(backend)
  await resolvedSwapSuite(backend)
}
