/**
 * What a backend makes of one command under a checked policy, itself
 * checked: the argv, enforcement and lists the provider returned, with each
 * denied path it does not say it hides added to `unenforced` as
 * `read-deny`. Shared by `confine()`, which then leases the protected
 * entries, and `describe()`, which takes nothing.
 */
import { describeError, KernelError } from '@dsh/kernel'
import { isInside } from '../paths.js'
import { hiddenPaths } from '../policy/read.js'
import type { Enforcement, ProviderConfined, ResolvedPolicy, SandboxProvider } from '../types.js'

export interface ConfineShape {
  readonly made: ProviderConfined
  readonly enforcement: Enforcement
  readonly unenforced: readonly string[]
  readonly hidden: readonly string[]
  /** the protected entries the backend copies and puts back (its snapshot list) */
  readonly restores: readonly string[]
}

/** The provider's answer for `argv` under `policy`, or SANDBOX_UNAVAILABLE when it fails or is malformed. */
export function confineShape(provider: SandboxProvider, argv: readonly string[], policy: ResolvedPolicy, execs?: { rules: boolean; checked: boolean }): ConfineShape {
  let made
  try {
    made = provider.confine(argv, policy)
    if (!Array.isArray(made?.argv) || !made.argv.length || !made.argv.every((a) => typeof a === 'string')) throw new Error('returned no argv')
    if (made.enforcement !== 'full' && made.enforcement !== 'partial') throw new Error(`returned enforcement ${JSON.stringify(made.enforcement)}`)
    if (!Array.isArray(made.unenforced)) throw new Error('returned no unenforced list')
    if (made.hidden !== undefined && !(Array.isArray(made.hidden) && made.hidden.every((h) => typeof h === 'string'))) throw new Error('returned a malformed hidden list')
    if (made.snapshot !== undefined && !(Array.isArray(made.snapshot) && made.snapshot.every((p) => typeof p === 'string' && policy.writableRoots.some((root) => isInside(root, p))))) {
      throw new Error('returned a snapshot list that is not of paths inside the writable roots')
    }
  } catch (error) {
    throw new KernelError('SANDBOX_UNAVAILABLE', `sandbox backend ${provider.name} failed to confine the command: ${describeError(error)}`, { cause: error })
  }
  // Why: a denied path the backend did not say it hides may be readable; never claim otherwise
  const hidden = made.hidden ?? []
  const unhidden = hiddenPaths(policy).filter((path) => !hidden.includes(path))
  let unenforced = unhidden.length && !made.unenforced.includes('read-deny') ? [...made.unenforced, 'read-deny'] : made.unenforced
  // Why: what a restriction says no backend enforces (a rule's pattern over files made during the call) is said per call
  const gaps = (policy.restrictionGaps ?? []).filter((id) => !unenforced.includes(id))
  if (gaps.length) unenforced = [...unenforced, ...gaps]
  // Why: exec rules that no kernel notification checks are the command text's matching alone, and that is said
  const execGap = !!execs?.rules && !execs.checked
  if (execGap) unenforced = [...unenforced, 'exec-rules']
  return { made, enforcement: unhidden.length || gaps.length || execGap ? 'partial' : made.enforcement, unenforced, hidden, restores: made.snapshot ?? [] }
}
