// The launcher's own namespaces under attack (see attacks.ts and holes.ts):
// the backend for machines where user namespaces work but no system bwrap
// is installed, held to what the bwrap backend holds. Skipped, with one
// line, where the kernel refuses user namespaces; plain Landlock is
// attacked on its own in sandbox-landlock.spec.ts either way.
import { backendSuites } from './backend-suites.js'

await backendSuites('landlock-ns')
