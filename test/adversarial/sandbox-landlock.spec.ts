// The Landlock backend under attack (see attacks.ts and holes.ts).
import { attackSuite } from './attacks.js'
import { holesSuite } from './holes.js'

await attackSuite('landlock')
await holesSuite('landlock')
