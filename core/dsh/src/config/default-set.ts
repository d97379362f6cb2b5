/**
 * The built-in default set: what `dsh mcp`, `dsh exec` and `dsh inspect`
 * run with no `--config` and no `./dsh.yml` — the workspace tools on the
 * current directory, the policy plugins, the workspace's Claude Code
 * hooks and permission rules, with the services at their defaults: sandbox read-only, approval ask. `dsh init` writes the same
 * set as a commented dsh.yml.
 */
import type { KernelOptions } from '../kernel/options.js'

/** Each plugin of the default set with its config; adding a plugin to the set is one line here. */
export const DEFAULT_PLUGINS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = Object.freeze({
  'workspace-tools': {},
  'timeout-policy': {},
  'spill-policy': {},
  'repeat-tool-reminder': {},
  'hooks-claude-code': {},
  // the rules a team wrote in its Claude Code settings apply; what no rule decides runs confined, as without them
  'claude-code-permissions': { preset: 'on-request' },
})

/**
 * The default set's services keep their own defaults — sandbox `read-only`,
 * approval `ask` — rather than setting them: an explicit key would override
 * an `approval.preset` in a file `dsh init` wrote.
 */
export function defaultSet(): KernelOptions {
  return { plugins: Object.fromEntries(Object.entries(DEFAULT_PLUGINS).map(([spec, config]) => [spec, structuredClone(config)])) }
}

/** The kernel options of a command: the config file when there is one, else the default set. */
export function commandOptions(configFile: string | undefined): KernelOptions {
  return configFile ? { configFile } : defaultSet()
}

/** The line a command prints on stderr to say which config it runs. */
export function configNotice(command: string, configFile: string | undefined): string {
  if (configFile) return `dsh ${command}: config ${configFile}`
  return `dsh ${command}: no dsh.yml here, using the built-in default set (${Object.keys(DEFAULT_PLUGINS).join(', ')}; sandbox read-only, approval ask); \`dsh init\` writes it to ./dsh.yml to change it, --config names another file`
}
