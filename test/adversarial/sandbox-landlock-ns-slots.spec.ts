// The landlock-ns backend under the same attacks, each command run in a sandbox built ahead for its view
// (landlock-run --slot, the pool's path): see sandbox-landlock-ns.spec.ts.
import { runThroughSlots } from './harness.js'
import { backendSuites } from './backend-suites.js'

runThroughSlots()
await backendSuites('landlock-ns')
