/**
 * The names a new plugin goes by, from the directory it is scaffolded into:
 * the npm package name (the directory's name, or `--name`), the plugin's
 * short name (without a `dsh-plugin-` prefix or a scope) and its tool's name.
 */
import { basename } from 'node:path'

export interface PluginNames {
  packageName: string
  pluginName: string
  toolName: string
}

// npm's rules for a new package name: lower case, URL-safe, at most 214 characters, optionally scoped
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/

export function pluginNames(dir: string, packageName?: string): PluginNames {
  const name = packageName ?? basename(dir)
  if (name.length > 214 || !PACKAGE_NAME.test(name)) {
    const from = packageName === undefined ? `the directory's name ${JSON.stringify(name)}` : `--name ${JSON.stringify(name)}`
    throw new Error(`${from} is not a valid npm package name (lower case letters, digits, '-', '.', '_', optionally @scope/); pass --name <package-name>`)
  }
  const pluginName = name.replace(/^@[^/]+\//, '').replace(/^dsh-plugin-/, '') || name
  // a tool name starts with a letter and holds letters, digits, '_' and '-' (the registry's rule)
  const toolName = `${pluginName.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/^[^a-zA-Z]+/, '')}_hello`.slice(-64).replace(/^[^a-zA-Z]+/, '') || 'hello'
  return { packageName: name, pluginName, toolName }
}
