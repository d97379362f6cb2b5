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

/** The whole environment a confined command of `policy` starts with (the argv sets it itself). */
export function confinedEnv(policy: { readonly workspace: string }): Readonly<Record<string, string>> {
  return Object.freeze(sandboxEnv(policy.workspace))
}

/** `--env NAME=VALUE` for each variable, as landlock-run takes them. */
export function launcherEnvArgs(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`])
}
