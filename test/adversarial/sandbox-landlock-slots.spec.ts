// The landlock backend under the same attacks, each command run in a sandbox built ahead for its view
// (landlock-run --slot, the pool's path): see sandbox-landlock.spec.ts.
import { runThroughSlots } from './harness.js'
import { attackSuite } from './attacks.js'
import { holesSuite } from './holes.js'
import { limitsSuite } from './limits.js'
import { namespaceSuite } from './namespace-only.js'
import { protectedPathsSuite } from './protected-paths.js'
import { protectedRenamesSuite } from './protected-renames.js'
import { readOnlyPathsSuite } from './read-only-paths.js'
import { readDenySuite } from './read-deny.js'
import { resolvedSwapSuite } from './resolved-swap.js'

runThroughSlots()
await attackSuite('landlock')
await holesSuite('landlock')
await limitsSuite('landlock')
await namespaceSuite('landlock')
await readDenySuite('landlock')
await protectedPathsSuite('landlock')
await protectedRenamesSuite('landlock')
await readOnlyPathsSuite('landlock')
await resolvedSwapSuite('landlock')
