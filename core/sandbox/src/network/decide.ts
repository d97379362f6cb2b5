/**
 * The proxy's decision on one connection a command asks for: is the host
 * allowed (patterns.ts), and — for a name — what does it resolve to? A name
 * is resolved once, here, and the connection goes to the address checked
 * (the engines are handed it; nothing resolves the name again). An allowed
 * name that resolves to a local address (address.ts) is refused unless that
 * address is itself listed or the name is allowed as `local:NAME`: otherwise
 * an allowed name whose DNS an attacker controls would lead to the host's
 * own services (DNS rebinding).
 */
import { lookup as dnsLookup } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { localRange } from './address.js'
import { addressListed, judgeHost, type HostVerdict, type ResolvedNetworkRules } from './patterns.js'
import { deniedAddressRemedy, localAddressRemedy, notListedRemedy } from './remedy.js'

export type Decision =
  | { allowed: true; address: string; family: 4 | 6 }
  /** `remedy`: what to change in the config so it would go through (none when nothing would: a host that is no host, a name that does not resolve) */
  | { allowed: false; reason: string; remedy?: string }

interface Resolved {
  address: string
  family: number
}

function resolveAll(lookup: LookupFunction, name: string): Promise<Resolved[]> {
  return new Promise((resolve, reject) => {
    lookup(name, { all: true }, (error, addresses) => {
      if (error) reject(error)
      else resolve(Array.isArray(addresses) ? addresses : [{ address: addresses as unknown as string, family: 4 }])
    })
  })
}

const refused = (reason: string, remedy?: string): Decision => (remedy === undefined ? { allowed: false, reason } : { allowed: false, reason, remedy })

/** Decide whether `host` may be reached under `rules`, and at which address; `verdict` is the patterns' (judgeHost), when already known. */
export async function decideConnection(rules: ResolvedNetworkRules, host: string, lookup: LookupFunction = dnsLookup as LookupFunction, verdict: HostVerdict = judgeHost(rules, host)): Promise<Decision> {
  const { canonical, allowed, local, denied } = verdict
  if (!canonical) return refused(`${JSON.stringify(host)} is not a host name or an IP address`)
  if (!allowed) return refused(`${host} is not in the network allow list`, notListedRemedy(host, denied))
  // a listed address: the address itself is what was allowed
  if ('ip' in canonical) return { allowed: true, address: canonical.ip, family: isIP(canonical.ip) as 4 | 6 }
  let addresses: Resolved[]
  try {
    addresses = await resolveAll(lookup, canonical.name)
  } catch (error) {
    return refused(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  const usable = addresses.filter((a) => typeof a?.address === 'string' && isIP(a.address))
  if (!usable.length) return refused(`${host} resolves to no address`)
  // Why every address, not just the first: a name that leads anywhere local is refused as a whole
  for (const { address } of usable) {
    if (rules.deny.length && addressListed(rules.deny, address)) return refused(`${host} resolves to ${address}, which the network deny list holds`, deniedAddressRemedy(address))
    const range = localRange(address)
    if (range && !local && !addressListed(rules.allow, address)) {
      return refused(`${host} resolves to ${address}, a ${range} address; an allowed name may lead to a local address only when the address itself or local:${host} is in the allow list`, localAddressRemedy(host, address))
    }
  }
  const first = usable[0]
  return { allowed: true, address: first.address, family: isIP(first.address) as 4 | 6 }
}

/** A lookup that answers every name with the address already checked (the engines' `lookup`). */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }) as unknown as LookupFunction
}
