/**
 * Checking `network`: `'off'`, `'on'`, or `{ allow, deny? }` host patterns
 * (patterns.ts), which send the command's traffic through the sandbox's
 * proxy. A bad value is an `INVALID_POLICY` error naming the key path and
 * the pattern.
 */
import { KernelError } from '@dsh/kernel'
import { normalizePattern, PATTERN_SYNTAX, type NetworkRules, type ResolvedNetworkRules } from './patterns.js'

export type NetworkPolicy = 'off' | 'on' | NetworkRules
export type ResolvedNetwork = 'off' | 'on' | ResolvedNetworkRules

/** Does this policy send the command's traffic through the proxy? */
export function isProxied(network: ResolvedNetwork): network is ResolvedNetworkRules {
  return typeof network === 'object'
}

function patterns(value: unknown, field: string, fail: (field: string, message: string) => never, local: boolean): string[] {
  if (!Array.isArray(value)) fail(field, `must be an array of host patterns (${PATTERN_SYNTAX})`)
  return value.map((pattern, i) => {
    const normal = typeof pattern === 'string' ? normalizePattern(pattern, local) : undefined
    if (normal === undefined) fail(`${field}[${i}]`, `${JSON.stringify(pattern)} is not a host pattern: use ${PATTERN_SYNTAX}`)
    return normal
  })
}

/**
 * `value` checked and normalized; `where` prefixes the message (`sandbox policy`,
 * `sandbox config`), `field` is the key path (`network`).
 */
export function resolveNetwork(value: unknown, where = 'sandbox policy', field = 'network'): ResolvedNetwork {
  const fail = (at: string, message: string): never => {
    throw new KernelError('INVALID_POLICY', `${where}: ${at} ${message}`, { details: { field: at } })
  }
  if (value === undefined || value === 'off') return 'off'
  if (value === 'on') return 'on'
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    fail(field, `must be "off", "on" or { allow: [host patterns], deny?: [host patterns] } (got ${JSON.stringify(value) ?? typeof value})`)
  }
  const rules = value as Partial<NetworkRules>
  for (const key of Object.keys(rules)) if (key !== 'allow' && key !== 'deny') fail(`${field}.${key}`, 'is not a key of network (allow, deny)')
  if (rules.allow === undefined) fail(`${field}.allow`, 'is required: the host patterns the command may reach ([] for none)')
  const allow = patterns(rules.allow, `${field}.allow`, fail, true)
  const deny = rules.deny === undefined ? [] : patterns(rules.deny, `${field}.deny`, fail, false)
  return Object.freeze({ allow: Object.freeze([...new Set(allow)]), deny: Object.freeze([...new Set(deny)]) })
}
