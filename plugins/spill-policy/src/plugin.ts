/**
 * spill-policy: a `tools/post-execute` listener that moves large text out of a
 * result into a spill file under the session's data directory, leaving a
 * head/tail preview and a reference the `read` tool can open.
 *
 * Not spilled: nested code-mode sub-calls (`exec.nested`: their results go to
 * the program, which needs them whole; the `run_code` result itself is
 * spilled when large), the tools in `exempt` (`read` by default), and results
 * another listener blocked. A spill never changes `isError`, never blocks, and
 * a failed spill leaves the content as it was.
 */
import type { Context } from 'cordis'
import type { BlockDecision, ToolResult } from '@dsh/tools'
import type { Config } from './config.js'
import { exceeds, spill } from './spill.js'

export const name = 'spill-policy'
/** `tools`: the pipeline whose results it rewrites */
export const inject = ['tools']

function isBlock(out: ToolResult | BlockDecision): out is BlockDecision {
  return (out as BlockDecision).kind === 'block'
}

export function apply(ctx: Context, config: Config): void {
  const max = config.maxInlineBytes
  const exempt = new Set(config.exempt)

  ctx.on('tools/post-execute', ({ exec }, next) => {
    if (exec.nested || exempt.has(exec.name)) return next()
    return next().then((out) => isBlock(out) || !exceeds(out.content, max) ? out : spill(exec, out, max))
  })
}
