// The Landlock backend under attack (see attacks.ts, holes.ts, limits.ts and namespace-only.ts).
import { attackSuite } from './attacks.js'
import { holesSuite } from './holes.js'
import { limitsSuite } from './limits.js'
import { namespaceSuite } from './namespace-only.js'
import { protectedPathsSuite } from './protected-paths.js'
import { protectedRenamesSuite } from './protected-renames.js'
import { readOnlyPathsSuite } from './read-only-paths.js'
import { readDenySuite } from './read-deny.js'
import { resolvedSwapSuite } from './resolved-swap.js'

await attackSuite('landlock')
await holesSuite('landlock')
await limitsSuite('landlock')
await namespaceSuite('landlock')
await readDenySuite('landlock')
await protectedPathsSuite('landlock')
await protectedRenamesSuite('landlock')
await readOnlyPathsSuite('landlock')
await resolvedSwapSuite('landlock')
