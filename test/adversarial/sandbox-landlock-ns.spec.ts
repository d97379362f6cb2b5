// The launcher's own namespaces under attack (see attacks.ts and holes.ts):
// the backend for machines where user namespaces work but no system bwrap
// is installed, held to what the bwrap backend holds. Skipped, with one
// line, where the kernel refuses user namespaces; plain Landlock is
// attacked on its own in sandbox-landlock.spec.ts either way.
import { attackSuite } from './attacks.js'
import { holesSuite } from './holes.js'
import { limitsSuite } from './limits.js'
import { namespaceSuite } from './namespace-only.js'
import { protectedPathsSuite } from './protected-paths.js'
import { protectedRenamesSuite } from './protected-renames.js'
import { readOnlyPathsSuite } from './read-only-paths.js'
import { readDenySuite } from './read-deny.js'
import { resolvedSwapSuite } from './resolved-swap.js'

await attackSuite('landlock-ns')
await holesSuite('landlock-ns')
await limitsSuite('landlock-ns')
await namespaceSuite('landlock-ns')
await protectedPathsSuite('landlock-ns')
await readDenySuite('landlock-ns')
await protectedRenamesSuite('landlock-ns')
await readOnlyPathsSuite('landlock-ns')
await resolvedSwapSuite('landlock-ns')
