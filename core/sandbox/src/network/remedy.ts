/**
 * What to change so that a refused connection goes through: one sentence
 * naming the config key (`sandbox.network` in dsh.yml, the sandbox service's
 * `network` for a host that builds the kernel itself). The proxy's 403 body,
 * web_fetch's denial and bash's hint line all say it the same way.
 */

/** The key a person edits: dsh.yml's spelling, which a programmatic host maps to the sandbox config's `network`. */
export const NETWORK_KEY = 'sandbox.network'

/** How a host is written in an allow list: an IPv6 address without brackets, a name as given. */
function asPattern(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}

/** The network is off for the call: what turns it on for `host` alone. */
export function networkOffRemedy(host: string): string {
  return `To allow it: set ${NETWORK_KEY} in dsh.yml to { allow: [${JSON.stringify(asPattern(host))}] } (only the listed hosts, each connection recorded), or to "on" (every host, unrecorded).`
}

/** `host` is not in the allow list (and, when `denied`, a deny pattern matches it). */
export function notListedRemedy(host: string, denied: boolean): string {
  return denied
    ? `To allow it: take the pattern matching ${host} out of ${NETWORK_KEY}.deny in dsh.yml (deny wins over allow).`
    : `To allow it: add ${JSON.stringify(asPattern(host))} to ${NETWORK_KEY}.allow in dsh.yml.`
}

/** An allowed name led to a local address. */
export function localAddressRemedy(host: string, address: string): string {
  return `To allow it: add ${JSON.stringify(`local:${host}`)} (or the address ${address}) to ${NETWORK_KEY}.allow in dsh.yml, if that host's own services are meant to be reached.`
}

/** An allowed name led to an address the deny list holds. */
export function deniedAddressRemedy(address: string): string {
  return `To allow it: take ${address} out of ${NETWORK_KEY}.deny in dsh.yml.`
}
