/**
 * tour: one small plugin that uses every hook a plugin has — a tool, a prompt
 * section, a `tools/pre-execute` listener, a `tools/execute` wrapper, a
 * `tools/post-execute` listener, its own cordis event and its own session
 * event. docs/plugins.md walks through it region by region.
 */
// #region head
import type { Context } from 'cordis'
import Schema from 'schemastery'
import { KernelError, type Execution } from 'dsh'

declare module 'cordis' {
  interface Events {
    /** emitted after `count` secrets were cut from the result of `exec` */
    'tour/redacted'(exec: Execution, count: number): void
  }
}

declare module '@dsh/kernel' {
  interface SessionEvents {
    'tour/asked': { callId: string; pattern: string }
  }
}

export const name = 'tour'
export const inject = ['tools', 'systemPrompt']
// #endregion head

// #region config
export const Config = Schema.object({
  ask: Schema.array(Schema.string()).default([])
    .description('Regular expressions: a bash command matching one needs approval.'),
  timeoutMs: Schema.natural().min(1).default(60_000)
    .description('Deadline of every tool call, in ms.'),
  secret: Schema.string().default('sk-[A-Za-z0-9]{16,}')
    .description('A regular expression for what is cut from every text result.'),
})

export type Config = Schemastery.TypeT<typeof Config>
// #endregion config

export function apply(ctx: Context, config: Config) {
  const ask = config.ask.map((source) => new RegExp(source))
  const secret = new RegExp(config.secret, 'g')

  // #region tool
  ctx.tools.register({
    name: 'word_count',
    description: 'Count the words of a text.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    concurrency: 'parallel',
    prompt: 'Use word_count instead of `wc -w`.',
    execute(args: { text: string }) {
      const words = args.text.split(/\s+/).filter(Boolean).length
      return { content: `${words} words`, value: { words } }
    },
  })
  // #endregion tool

  // #region section
  ctx.systemPrompt.section({
    id: 'tour',
    order: 10,
    text: () => `Some shell commands need a human's approval: ${config.ask.join(', ') || 'none'}.`,
  })
  // #endregion section

  // #region pre-execute
  ctx.on('tools/pre-execute', async (exec, next) => {
    const command = exec.arguments.command
    const hit = exec.name === 'bash' && typeof command === 'string'
      ? ask.find((pattern) => pattern.test(command))
      : undefined
    // always let the later listeners speak: their deny must not be lost
    const later = await next()
    if (!hit || later.kind === 'deny') return later
    await exec.session.append('tour/asked', { callId: exec.callId, pattern: hit.source })
    return { kind: 'ask', reason: `the command matches ${hit}` }
  })
  // #endregion pre-execute

  // #region execute
  ctx.on('tools/execute', async (exec, next) => {
    const deadline = new AbortController()
    const timer = setTimeout(() => {
      deadline.abort(new KernelError('TIMEOUT', `${exec.name} exceeded ${config.timeoutMs} ms`))
    }, config.timeoutMs)
    try {
      // the body gets this signal fused with the caller's: it stops at either
      return await next({ signal: deadline.signal })
    } finally {
      clearTimeout(timer)
    }
  })
  // #endregion execute

  // #region post-execute
  ctx.on('tools/post-execute', async ({ exec }, next) => {
    const result = await next()
    if ('kind' in result) return result // a later listener blocked it
    let count = 0
    const content = result.content.map((block) => {
      if (block.type !== 'text') return block
      return { ...block, text: block.text.replace(secret, () => (count++, '[redacted]')) }
    })
    if (count === 0) return result
    ctx.emit('tour/redacted', exec, count)
    // an error result keeps its error message whatever a listener returns: withhold it
    if (result.isError) return { kind: 'block', feedback: `${count} secret(s) withheld from an error` }
    // the structured value may hold the secret too: drop it
    return { ...result, content, value: undefined }
  })
  // #endregion post-execute
}
