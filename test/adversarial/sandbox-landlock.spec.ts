// The Landlock backend under attack (see attacks.ts and holes.ts).
import { attackSuite } from './attacks.js'
import { holesSuite } from './holes.js'
import { limitsSuite } from './limits.js'

await attackSuite('landlock')
await holesSuite('landlock')
await limitsSuite('landlock')
