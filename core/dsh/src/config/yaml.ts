/**
 * The `yaml` package, loaded the first time a config file is read: on node it
 * is CommonJS of about seventy modules, and `dsh mcp` with the built-in
 * default set reads no file. Loaded with `require`, so reading a config stays
 * synchronous; an `import 'yaml'` elsewhere gets the same module instance.
 */
import { createRequire } from 'node:module'
import type * as Yaml from 'yaml'

const require = createRequire(import.meta.url)
let loaded: typeof Yaml | undefined

export function yaml(): typeof Yaml {
  return (loaded ??= require('yaml') as typeof Yaml)
}
