/**
 * The environment a confined command gets: fixed, minimal, and never
 * inherited. Nothing the model or the host's shell set (LD_PRELOAD,
 * BASH_ENV, ENV, NODE_OPTIONS, PYTHONPATH, GIT_*) reaches the command.
 */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin'

export function sandboxEnv(home: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: home, LANG: 'C.UTF-8' }
}
