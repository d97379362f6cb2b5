/**
 * Who decided a failure (`ToolResult.error.source`): built only on the way to
 * an error result, so a call that succeeds allocates nothing for it. The
 * plugin is always found by the pipeline — the owner of the listener, guard or
 * tool — and never taken from what a listener says about itself.
 */
import type { Context } from 'cordis'
import { ownerName, type ListenerList } from '@dsh/kernel'
import { unwrapListener } from '@dsh/kernel/internals'
import type { DecisionSource, ErrorSource, ErrorSourceKind } from '../types.js'

const MAX_DETAIL = 300

/** The same frozen source for every failure a step decides with no plugin and no detail. */
export const PREPARE: ErrorSource = Object.freeze({ kind: 'prepare' })

/** The plugin owning the listener `fn` of `list` (undefined when it has gone since the call started). */
export function listenerOwner(list: ListenerList, fn: unknown): string | undefined {
  if (!fn) return undefined
  const hook = list.hooks().find((h) => unwrapListener(h.callback) === fn)
  return hook ? ownerName(hook.ctx as Context) : undefined
}

/** A source with only the fields that have a value. */
export function sourceOf(kind: ErrorSourceKind, plugin?: string, detail?: string): ErrorSource {
  const source: ErrorSource = { kind }
  if (plugin !== undefined) source.plugin = plugin
  if (detail !== undefined) source.detail = detail
  return source
}

/**
 * The source of a listener's deny, ask or block: the gate's kind, or the one
 * it names (a rule, a hook, a mode: never a guard's or an approval's, which
 * only the pipeline decides), with its detail cut to a readable length.
 */
export function listenerSource(gate: 'pre-execute' | 'post-execute', plugin: string | undefined, said: DecisionSource | undefined): ErrorSource {
  if (!said || typeof said !== 'object') return sourceOf(gate, plugin)
  const kind = said.kind === 'rule' || said.kind === 'hook' || said.kind === 'mode' ? said.kind : gate
  const detail = typeof said.detail === 'string' && said.detail ? said.detail.slice(0, MAX_DETAIL) : undefined
  return sourceOf(kind, plugin, detail)
}
