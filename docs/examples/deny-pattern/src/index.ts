/**
 * deny-pattern: refuses calls of `bash` (or the configured tools) whose
 * `command` matches one of the configured regular expressions. The worked
 * example of docs/plugins.md.
 */
// #region plugin
import type { Context } from 'cordis'
import Schema from 'schemastery'
import type {} from 'dsh'

export const name = 'deny-pattern'
// every service the plugin touches: cordis starts it only once they exist
export const inject = ['tools']

export const Config = Schema.object({
  patterns: Schema.array(Schema.string()).required()
    .description('Regular expressions; a command matching any of them is refused.'),
  tools: Schema.array(Schema.string()).default(['bash'])
    .description('The tools whose `command` argument is checked.'),
})

// what `apply` receives: the schema's output, defaults filled in
export type Config = Schemastery.TypeT<typeof Config>

export function apply(ctx: Context, config: Config) {
  // a bad pattern throws here, so the kernel refuses to load the plugin
  const patterns = config.patterns.map((source) => new RegExp(source))
  const tools = new Set(config.tools)
  ctx.tools.guard((exec) => {
    if (!tools.has(exec.name)) return
    const command = exec.arguments.command
    // fail closed: a call this guard cannot read is refused, not waved through
    if (typeof command !== 'string') return `deny-pattern: ${exec.name} has no command to check`
    const hit = patterns.find((pattern) => pattern.test(command))
    if (hit) return `deny-pattern: the command matches ${hit}`
  })
}
// #endregion plugin
