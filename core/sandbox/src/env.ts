/**
 * The environment a confined command gets: fixed, minimal, and never
 * inherited. Nothing the model or the host's shell set (LD_PRELOAD,
 * BASH_ENV, ENV, NODE_OPTIONS, PYTHONPATH, GIT_*) reaches the command:
 * the confined argv itself starts the command with only these variables,
 * whatever environment the host spawns it with.
 */
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
export function confinedEnv(policy: { readonly workspace: string; readonly proxy?: { readonly port: number } }): Readonly<Record<string, string>> {
  const env = sandboxEnv(policy.workspace)
  if (policy.proxy) {
    const http = `http://127.0.0.1:${policy.proxy.port}`
    const socks = `socks5h://127.0.0.1:${policy.proxy.port}`
    Object.assign(env, { HTTP_PROXY: http, HTTPS_PROXY: http, ALL_PROXY: socks, http_proxy: http, https_proxy: http, all_proxy: socks })
  }
  return Object.freeze(env)
}

/** `--env NAME=VALUE` for each variable, as landlock-run takes them. */
export function launcherEnvArgs(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`])
}
