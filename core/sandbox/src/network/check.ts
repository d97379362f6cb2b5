/**
 * One connection decided and recorded: the step the proxy takes for each
 * CONNECT, SOCKS5 request and HTTP request, and the one an in-process tool
 * (web_fetch) takes before it opens a socket — so both answer from the same
 * decision (decide.ts) and leave the same `sandbox/network` line. A record
 * that cannot be written refuses the connection.
 */
import { lookup as dnsLookup } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { decideConnection, type Decision } from './decide.js'
import { canonicalHost, judgeHost, type HostVerdict, type ResolvedNetworkRules } from './patterns.js'
import type { ResolvedNetwork } from './policy.js'
import type { ConnectionRecorder } from './connection.js'
import { networkOffRemedy } from './remedy.js'

/** Record `decision` for host:port; a record that fails turns it into a refusal. */
function recorded(record: ConnectionRecorder, host: string, port: number, decision: Decision): Decision {
  try {
    record({ host, port, allowed: decision.allowed, ...(decision.allowed ? { address: decision.address } : { reason: decision.reason, ...(decision.remedy ? { remedy: decision.remedy } : {}) }) })
  } catch {
    return { allowed: false, reason: 'the connection could not be recorded' }
  }
  return decision
}

/** Decide host:port under host patterns (the proxy's question) and record the answer. */
export async function checkListed(rules: ResolvedNetworkRules, host: string, port: number, record: ConnectionRecorder, lookup?: LookupFunction, verdict: HostVerdict = judgeHost(rules, host)): Promise<Decision> {
  return recorded(record, host, port, await decideConnection(rules, host, lookup, verdict))
}

/** Where a name leads, for a policy that lets every host through (`"on"`): resolved once, so the socket goes where the record says. */
function resolveOne(lookup: LookupFunction, name: string): Promise<Decision> {
  return new Promise((resolve) => {
    lookup(name, { all: false }, (error, address, family) => {
      if (error) resolve({ allowed: false, reason: `${name} does not resolve (${(error as NodeJS.ErrnoException).code ?? error.message})` })
      else if (typeof address !== 'string' || !isIP(address)) resolve({ allowed: false, reason: `${name} resolves to no address` })
      else resolve({ allowed: true, address, family: (family === 6 ? 6 : 4) })
    })
  })
}

/**
 * Decide host:port under a whole network policy, for a connection made on
 * the host by dsh itself: `"off"` refuses with the remedy, `"on"` lets any
 * host through (resolved here), host patterns decide as the proxy does.
 * Each answer is recorded.
 */
export async function checkNetwork(network: ResolvedNetwork, host: string, port: number, record: ConnectionRecorder, lookup: LookupFunction = dnsLookup as LookupFunction): Promise<Decision> {
  if (typeof network === 'object') return checkListed(network, host, port, record, lookup)
  if (network === 'off') {
    return recorded(record, host, port, { allowed: false, reason: 'the sandbox\'s network is off', remedy: networkOffRemedy(host) })
  }
  const canonical = canonicalHost(host)
  if (!canonical) return recorded(record, host, port, { allowed: false, reason: `${JSON.stringify(host)} is not a host name or an IP address` })
  const decision: Decision = 'ip' in canonical ? { allowed: true, address: canonical.ip, family: isIP(canonical.ip) as 4 | 6 } : await resolveOne(lookup, canonical.name)
  return recorded(record, host, port, decision)
}
