/**
 * tool-cordis: the model-facing, read-only `cordis_inspect` tool. It returns
 * the registry snapshot (optionally one section, optionally one name) as its
 * value, and the same as compact JSON text.
 */
import type { Context } from 'cordis'
import Schema from 'schemastery'
import type { JsonValue } from '@dsh/kernel'
import type {} from '@dsh/tools'
import { filterSnapshot } from './filter.js'
import { snapshot } from './snapshot.js'
import { SECTIONS, type SectionName } from './types.js'

export const name = 'tool-cordis'
/**
 * `tools`: where the tool is registered. The rest are read when present
 * (`dsh`: the kernel's loaded-plugin list).
 */
export const inject = {
  tools: { required: true },
  systemPrompt: { required: false },
  sandbox: { required: false },
  approval: { required: false },
  dsh: { required: false },
}

export interface Config {}
export const Config: Schema<Config> = Schema.object({})

export const TOOL_NAME = 'cordis_inspect'

const description = [
  'Inspect the tool kernel: which plugin registered each tool, listener, guard and prompt section, in what order;',
  'the sandbox backends and their probe results; the approval policy; the loaded plugins and their status.',
  'Read-only. Narrow it with `section` and/or `name` (an entry name or the owning plugin).',
].join(' ')

export function apply(ctx: Context): void {
  ctx.tools.register({
    name: TOOL_NAME,
    title: 'Inspect the kernel registry',
    description,
    annotations: { readOnlyHint: true, openWorldHint: false },
    parameters: {
      type: 'object',
      properties: {
        section: { type: 'string', enum: [...SECTIONS], description: 'only this part of the snapshot' },
        name: { type: 'string', minLength: 1, description: 'only entries with this name, or owned by the plugin of this name' },
      },
      additionalProperties: false,
    },
    concurrency: 'parallel',
    execute(args: { section?: SectionName; name?: string }) {
      const value = filterSnapshot(snapshot(ctx), { section: args.section, name: args.name }) as unknown as JsonValue
      return { value, content: JSON.stringify(value) }
    },
  })
}
