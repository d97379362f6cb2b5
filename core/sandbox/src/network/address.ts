/**
 * Which addresses count as local for the proxy: every address ipaddr.js
 * does not classify as ordinary `unicast` — loopback (127/8, ::1),
 * unspecified (0.0.0.0, ::), private (10/8, 172.16/12, 192.168/16),
 * link-local (169.254/16, fe80::/10), unique-local (fc00::/7), carrier-grade
 * NAT, multicast, broadcast, and the reserved and documentation ranges
 * (a host's own network may use them), the IPv6 forms that embed an IPv4
 * address (NAT64, 6to4, Teredo, and the old IPv4-compatible ::a.b.c.d, which
 * ipaddr.js leaves as unicast). An IPv4-mapped IPv6 address (::ffff:127.0.0.1)
 * is judged as the IPv4 address it maps. See
 * docs/decisions/2026-12-01-network-proxy.md.
 */
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
