/**
 * Tools and guards, from the tools service's inspection views (`entries()`,
 * `guards()`, `wireSchemas()`): all three only read the registry.
 */
import { RESERVED_TOOL, type GuardEntry, type ToolEntry, type ToolSchema, type ToolsMode } from '@dsh/tools'
import type { GuardInfo, ToolInfo } from './types.js'

/** The part of the tools service a snapshot reads. */
export interface ToolsView {
  readonly mode: ToolsMode
  entries(): readonly ToolEntry[]
  guards(): readonly GuardEntry[]
  wireSchemas(): readonly ToolSchema[]
}

function concurrencyOf(entry: ToolEntry): ToolInfo['concurrency'] {
  const c = entry.def.concurrency
  if (typeof c === 'function') return 'dynamic'
  return c === 'parallel' ? 'parallel' : 'exclusive'
}

export function functionName(fn: unknown): string | null {
  const name = typeof fn === 'function' ? fn.name : ''
  return typeof name === 'string' && name ? name : null
}

export function collectTools(tools: ToolsView): ToolInfo[] {
  const wired = new Set(tools.wireSchemas().map((schema) => schema.name))
  return tools.entries().map((entry) => {
    // the rule wireSchemas applies: native → every tool but the transport; code → the transport only; both → all
    const reserved = entry.reserved && entry.def.name === RESERVED_TOOL
    return {
      name: entry.def.name,
      owner: entry.ownerName,
      description: entry.def.description,
      reserved,
      visibility: { native: !reserved, code: reserved, both: true },
      wired: wired.has(entry.def.name),
      sdk: !reserved,
      concurrency: concurrencyOf(entry),
      timeoutMs: entry.def.timeoutMs ?? null,
      hasPrompt: typeof entry.def.prompt === 'string' && entry.def.prompt.length > 0,
      hasFinalizer: typeof entry.def.finalizeContent === 'function',
    }
  })
}

export function collectGuards(tools: ToolsView): GuardInfo[] {
  const perOwner = new Map<string, number>()
  return tools.guards().map((guard, index) => {
    const n = (perOwner.get(guard.ownerName) ?? 0) + 1
    perOwner.set(guard.ownerName, n)
    const fn = functionName(guard.fn)
    // an anonymous guard is named as a refusal names it: by its place among its plugin's guards
    return { order: index + 1, owner: guard.ownerName, function: fn, name: fn ?? `#${n}` }
  })
}
