/** repeat-tool-reminder: one advisory block on a result when the model repeats a call, since a model stuck in a loop rarely notices it (what counts and why: its README). */
import type { Context } from 'cordis'
import type { BlockDecision, ContentBlock, ToolResult } from '@dsh/tools'
import type { Config } from './config.js'
import { Streaks } from './streaks.js'

export const name = 'repeat-tool-reminder'
/** `tools`: the pipeline whose results it annotates */
export const inject = ['tools']

/** The text of the reminder appended at run length `count`. */
export function reminderText(tool: string, count: number): string {
  return `[repeat-tool-reminder] This is call ${count} in a row of the tool "${tool}" with the same arguments. `
    + 'Repeating it is unlikely to give a different result: change the arguments, try another approach, '
    + 'or tell the user what is blocking you.'
}

function isBlock(out: ToolResult | BlockDecision): out is BlockDecision {
  return (out as BlockDecision).kind === 'block'
}

export function apply(ctx: Context, config: Config): void {
  const at = new Set(config.thresholds)
  const streaks = new Streaks()
  ctx.effect(() => () => streaks.dispose())

  ctx.on('tools/post-execute', ({ exec }, next) => {
    if (exec.nested) return next()
    const count = streaks.count(exec.session, exec.name, exec.arguments)
    if (!at.has(count)) return next()
    return next().then((out) => {
      if (isBlock(out)) return out
      const reminder: ContentBlock = { type: 'text', text: reminderText(exec.name, count) }
      return { ...out, content: [...out.content, reminder] }
    })
  }, true)
}
