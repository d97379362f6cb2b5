// The bubblewrap backend under attack (see attacks.ts).
import { attackSuite } from './attacks.js'

attackSuite('bwrap')
