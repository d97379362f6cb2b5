/** Which addresses count as local for the proxy, embedded IPv4 forms included, since an allowed name must not lead the command to the host's own network (docs/decisions/2026-12-01-network-proxy.md). */
import ipaddr from 'ipaddr.js'

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/** The range `address` lies in when it is not an ordinary public one ('loopback', 'private', …); undefined when it is. */
export function localRange(address: string): string | undefined {
  let parsed: ReturnType<typeof ipaddr.process>
  try {
    // Why process: it turns an IPv4-mapped IPv6 address into the IPv4 one, whose range is what counts
    parsed = ipaddr.process(address)
  } catch {
    return 'unparseable'
  }
  const range = parsed.range()
  if (range !== 'unicast') return range
  return parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : undefined
}
