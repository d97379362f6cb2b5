// The Landlock backend under attack (see attacks.ts, holes.ts, limits.ts and namespace-only.ts).
import { backendSuites } from './backend-suites.js'

await backendSuites('landlock')
