// The Landlock backend under attack (see attacks.ts).
import { attackSuite } from './attacks.js'

await attackSuite('landlock')
