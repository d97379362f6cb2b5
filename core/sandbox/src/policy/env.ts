/**
 * The environment a confined command gets: fixed, minimal, and never
 * inherited. Nothing the model or the host's shell set (LD_PRELOAD,
 * BASH_ENV, ENV, NODE_OPTIONS, PYTHONPATH, GIT_*) reaches the command:
 * the confined argv itself starts the command with only these variables,
 * whatever environment the host spawns it with — but for the proxy
 * credential, which it takes from that environment (`Confined.spawnEnv`).
 */
import type { ProxyEndpoint } from '../network/proxy.js'

export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin'

export function sandboxEnv(home: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: home, LANG: 'C.UTF-8' }
}

/**
 * The whole environment a confined command of `policy` starts with (the argv
 * sets it itself). With a proxy, the variables tools read to use one, in both
 * cases: HTTP for http(s) clients, SOCKS5 with remote name resolution for the
 * rest (`socks5h`: the command has no DNS, the proxy resolves).
 */
export function confinedEnv(policy: { readonly workspace: string; readonly proxy?: ProxyEndpoint; readonly env?: Readonly<Record<string, string>> }): Readonly<Record<string, string>> {
  const env = { ...sandboxEnv(policy.workspace), ...policy.env }
  if (policy.proxy) {
    const { username, password } = policy.proxy.credential
    const http = `http://${username}:${password}@127.0.0.1:${policy.proxy.port}`
    const socks = `socks5h://${username}:${password}@127.0.0.1:${policy.proxy.port}`
    Object.assign(env, { HTTP_PROXY: http, HTTPS_PROXY: http, ALL_PROXY: socks, http_proxy: http, https_proxy: http, all_proxy: socks })
  }
  return Object.freeze(env)
}

/**
 * The variables that carry the call's proxy credential. They never go into
 * the launcher's argv, which every process on the host can read
 * (/proc/PID/cmdline of the launcher, and of bwrap): the launcher takes them
 * from the environment it is spawned with (`--env-from`), which only the
 * user's own processes can read.
 */
export const CREDENTIAL_VARIABLES: readonly string[] = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']

/** Variables whose values reach the launcher by its environment: the credential's, and the policy's own (a server's token). */
function fromSpawnEnv(name: string, own?: Readonly<Record<string, string>>): boolean {
  return CREDENTIAL_VARIABLES.includes(name) || (own !== undefined && Object.hasOwn(own, name))
}

/** `--env NAME=VALUE` for each variable, as landlock-run takes them; `--env-from NAME` for the credential's and the policy's own. */
export function launcherEnvArgs(env: Readonly<Record<string, string>>, own?: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).flatMap(([name, value]) => (fromSpawnEnv(name, own) ? ['--env-from', name] : ['--env', `${name}=${value}`]))
}

/** What the confined argv must be spawned with in its environment: the credential's variables of `env`, and the policy's own. */
export function spawnEnvOf(env: Readonly<Record<string, string>>, own?: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return Object.freeze(Object.fromEntries(Object.entries(env).filter(([name]) => fromSpawnEnv(name, own))))
}
