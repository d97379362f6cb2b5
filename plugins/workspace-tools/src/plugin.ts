/**
 * workspace-tools: read, write, edit, ls, grep, glob, bash and web_fetch, with
 * Claude Code's argument names so hooks written for it work. bash runs
 * confined by the sandbox service; the file tools enforce the same policy in
 * process (area.ts, paths.ts), and web_fetch asks the sandbox for each
 * connection (tools/web-fetch.ts).
 */
import type { Context } from 'cordis'
import { isAbsolute } from 'node:path'
import { KernelError } from '@dsh/kernel'
import type {} from '@dsh/sandbox'
import type {} from '@dsh/tools'
import type { Config } from './config.js'
import { bashTool } from './tools/bash.js'
import { editTool } from './tools/edit.js'
import { globTool } from './tools/glob.js'
import { grepTool } from './tools/grep.js'
import { lsTool } from './tools/ls.js'
import { readTool } from './tools/read.js'
import { webFetchTool } from './tools/web-fetch.js'
import { MarkdownConverter } from './web/markdown.js'
import { writeTool } from './tools/write.js'

export const name = 'workspace-tools'
/** `tools`: where they are registered; `sandbox`: modes, policies and confinement */
export const inject = ['tools', 'sandbox']

export function apply(ctx: Context, config: Config): void {
  if (config.workspace !== undefined && !isAbsolute(config.workspace)) {
    throw new KernelError('INVALID_CONFIG', `workspace-tools: workspace must be an absolute path (got ${JSON.stringify(config.workspace)})`)
  }
  for (const make of [readTool, writeTool, editTool, lsTool, grepTool, globTool, bashTool]) ctx.tools.register(make(ctx, config) as any)
  // web_fetch's converter threads end with the plugin
  const converter = new MarkdownConverter()
  ctx.on('dispose', () => converter.close())
  ctx.tools.register(webFetchTool(ctx, config, converter) as any)
}
