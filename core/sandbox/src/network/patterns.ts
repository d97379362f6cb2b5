/** Host patterns of `network: { allow, deny }` and whether a host may be reached, deny winning (the grammar: docs/configuration.md). */
import { isIP } from 'node:net'
import { domainToASCII } from 'node:url'

/** What a caller asks for: patterns as written. */
export interface NetworkRules {
  allow: string[]
  deny?: string[]
}

/** Rules after checking: every pattern in its normal form. */
export interface ResolvedNetworkRules {
  readonly allow: readonly string[]
  readonly deny: readonly string[]
}

export const PATTERN_SYNTAX = 'a name (example.com), *.example.com for the names below it, * for every name, or an IP address; in allow also local:NAME for a name that may resolve to a local address'

/** The prefix of an allow pattern whose names may resolve to local addresses. */
export const LOCAL_PREFIX = 'local:'

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/
// Why: getaddrinfo reads 2130706433, 0x7f.1 or 127.1 as 127.0.0.1, so a "name" whose last label is numeric is an address in disguise
const NUMERIC_LABEL = /^(0x[0-9a-f]*|[0-9]+)$/i

/** The canonical form of an IP literal (brackets dropped, IPv6 compressed), or undefined for a name. */
function canonicalIp(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  const version = isIP(bare)
  if (version === 4) return bare
  if (version === 6) return new URL(`http://[${bare}]`).hostname.slice(1, -1)
  return undefined
}

/** A host name in its compared form, or undefined when it is no valid name. */
function canonicalName(host: string): string | undefined {
  // Why first: domainToASCII parses a URL host, so "a.test/x" or "a.test:80" would come back as "a.test"
  if (/[\x00-\x20/\\:@?#%[\]]/.test(host)) return undefined
  const trimmed = host.endsWith('.') ? host.slice(0, -1) : host
  const ascii = domainToASCII(trimmed.toLowerCase())
  if (!ascii || ascii.length > 253) return undefined
  const labels = ascii.split('.')
  if (!labels.every((label) => LABEL.test(label))) return undefined
  if (NUMERIC_LABEL.test(labels[labels.length - 1])) return undefined
  return ascii
}

/** What a destination the command asked for is: an address, a name, or nothing valid. */
export function canonicalHost(host: string): { ip: string } | { name: string } | undefined {
  const ip = canonicalIp(host)
  if (ip !== undefined) return { ip }
  const name = canonicalName(host)
  return name === undefined ? undefined : { name }
}

/** A pattern in its normal form, or undefined when it is not one; `local:` patterns only when `local` (allow lists). */
export function normalizePattern(pattern: string, local = false): string | undefined {
  if (pattern.startsWith(LOCAL_PREFIX)) {
    const rest = pattern.slice(LOCAL_PREFIX.length)
    // Why no address: an address is allowed by listing it, local or not
    if (!local || canonicalIp(rest) !== undefined) return undefined
    const name = normalizePattern(rest)
    return name === undefined ? undefined : `${LOCAL_PREFIX}${name}`
  }
  if (pattern === '*') return '*'
  const ip = canonicalIp(pattern)
  if (ip !== undefined) return ip
  const wildcard = pattern.startsWith('*.')
  const name = canonicalName(wildcard ? pattern.slice(2) : pattern)
  if (name === undefined) return undefined
  return wildcard ? `*.${name}` : name
}

function matches(pattern: string, host: { ip: string } | { name: string }): boolean {
  if (pattern.startsWith(LOCAL_PREFIX)) return 'name' in host && matches(pattern.slice(LOCAL_PREFIX.length), host)
  if ('ip' in host) return pattern === host.ip
  if (pattern === '*') return true
  if (pattern.startsWith('*.')) return host.name.endsWith(pattern.slice(1))
  return pattern === host.name
}

/** What the patterns say of one host, read once: its canonical form, whether it may be reached, whether it may lead to a local address. */
export interface HostVerdict {
  readonly canonical?: { ip: string } | { name: string }
  readonly allowed: boolean
  readonly local: boolean
  /** a deny pattern matches it (so no allow pattern can let it through) */
  readonly denied: boolean
}

/** The patterns' verdict on `host` (deny wins; an invalid host is refused; `local` only for a name a `local:` pattern matches). */
export function judgeHost(rules: ResolvedNetworkRules, host: string): HostVerdict {
  const canonical = canonicalHost(host)
  if (!canonical) return { allowed: false, local: false, denied: false }
  const denied = rules.deny.some((pattern) => matches(pattern, canonical))
  const allowed = !denied && rules.allow.some((pattern) => matches(pattern, canonical))
  const local = allowed && 'name' in canonical && rules.allow.some((pattern) => pattern.startsWith(LOCAL_PREFIX) && matches(pattern, canonical))
  return { canonical, allowed, local, denied }
}

/** May `host` be reached under `rules`? Deny wins; an invalid host is refused. */
export function hostAllowed(rules: ResolvedNetworkRules, host: string): boolean {
  return judgeHost(rules, host).allowed
}

/** May `host` (a name) lead to a local address: does a `local:` pattern of allow match it? */
export function localAllowed(rules: ResolvedNetworkRules, host: string): boolean {
  const canonical = canonicalHost(host)
  return !!canonical && 'name' in canonical && rules.allow.some((pattern) => pattern.startsWith(LOCAL_PREFIX) && matches(pattern, canonical))
}

/** Is the address `ip` listed in `patterns` (in any spelling)? */
export function addressListed(patterns: readonly string[], ip: string): boolean {
  const canonical = canonicalIp(ip)
  return canonical !== undefined && patterns.includes(canonical)
}
