/**
 * Reading hooks from Claude Code's settings shape and Codex's hooks.json:
 * `{ hooks: { <Event>: [{ matcher?, hooks: [{ type: 'command', command, timeout? }] }] } }`.
 * Every other key of a settings file (permissions, env, ...) and every event
 * this plugin does not run is ignored. Inside a supported event the shape is
 * checked strictly: an unknown key or a feature we cannot honour (another
 * handler type, `async`, `once`, `if`) is an `INVALID_CONFIG` error naming the
 * file and the JSON path, never a hook silently skipped.
 */
import { isObject, parseSettingsDocument, readSettingsDocument, show } from '@dsh/claude-code-settings'
import { KernelError } from '@dsh/kernel'
import { MAX_TIMEOUT_SECONDS } from './limits.js'
import { compileMatcher } from './matcher.js'
import { HOOK_EVENTS, NOTICE_EVENTS, type HookEvent, type HookSpec, type OnError, type SourceKind } from './types.js'

export const INLINE_SOURCE = 'the inline hooks config'

const GROUP_KEYS = new Set(['matcher', 'hooks'])
/** keys a command handler may have; Codex adds `timeoutSec` (an alias of `timeout`) and `commandWindows` */
const HANDLER_KEYS: Record<SourceKind, Set<string>> = {
  claude: new Set(['type', 'command', 'timeout', 'statusMessage', 'onError', 'async', 'once']),
  codex: new Set(['type', 'command', 'timeout', 'timeoutSec', 'statusMessage', 'onError', 'async', 'commandWindows']),
}

function fail(source: string, path: string, message: string): never {
  throw new KernelError('INVALID_CONFIG', `${source}: ${path}: ${message}`, { details: { file: source, path } })
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

function parseHandler(value: unknown, source: string, path: string, kind: SourceKind, event: HookEvent, matcher: { text?: string; fn: HookSpec['matcher'] }): HookSpec {
  if (!isObject(value)) fail(source, path, `expected a hook object, got ${show(value)}`)
  const type = own(value, 'type')
  if (type !== 'command') {
    fail(source, `${path}.type`, type === undefined
      ? 'missing; only "command" hooks are supported'
      : `${show(type)} hooks are not supported, only "command"`)
  }
  for (const key of Object.keys(value)) {
    if (!HANDLER_KEYS[kind].has(key)) fail(source, `${path}.${key}`, 'unknown key')
  }
  const command = own(value, 'command')
  if (typeof command !== 'string' || command.trim() === '') fail(source, `${path}.command`, `expected a non-empty string, got ${show(command)}`)
  for (const flag of ['async', 'once'] as const) {
    const set = own(value, flag)
    if (set === undefined || set === false) continue
    // nobody waits for a notice's answer: it runs in the background anyway
    if (flag === 'async' && set === true && NOTICE_EVENTS.has(event)) continue
    // a hook that cannot decide (async) or runs only sometimes (once) is not a policy we can enforce
    if (set === true) fail(source, `${path}.${flag}`, `${flag} hooks are not supported`)
    fail(source, `${path}.${flag}`, `expected a boolean, got ${show(set)}`)
  }
  const spec: HookSpec = { event, matcher: matcher.fn, command, source, path }
  if (matcher.text !== undefined) spec.matcherText = matcher.text
  const timeoutKey = own(value, 'timeout') !== undefined ? 'timeout' : own(value, 'timeoutSec') !== undefined ? 'timeoutSec' : undefined
  if (timeoutKey) {
    const timeout = value[timeoutKey]
    if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_TIMEOUT_SECONDS) {
      fail(source, `${path}.${timeoutKey}`, `expected seconds between 0 and ${MAX_TIMEOUT_SECONDS}, got ${show(timeout)}`)
    }
    spec.timeout = timeout
  }
  const onError = own(value, 'onError')
  if (onError !== undefined) {
    if (onError !== 'deny' && onError !== 'ignore') fail(source, `${path}.onError`, `expected "deny" or "ignore", got ${show(onError)}`)
    spec.onError = onError as OnError
  }
  for (const key of ['statusMessage', 'commandWindows'] as const) {
    const text = own(value, key)
    if (text !== undefined && typeof text !== 'string') fail(source, `${path}.${key}`, `expected a string, got ${show(text)}`)
  }
  return spec
}

function parseGroup(value: unknown, source: string, path: string, kind: SourceKind, event: HookEvent): HookSpec[] {
  if (!isObject(value)) fail(source, path, `expected a matcher group { matcher, hooks }, got ${show(value)}`)
  for (const key of Object.keys(value)) {
    if (!GROUP_KEYS.has(key)) fail(source, `${path}.${key}`, 'unknown key')
  }
  const text = own(value, 'matcher')
  if (text !== undefined && typeof text !== 'string') fail(source, `${path}.matcher`, `expected a string, got ${show(text)}`)
  const fn = compileMatcher(text as string | undefined)
  if (typeof fn === 'string') fail(source, `${path}.matcher`, `${show(text)} is ${fn}`)
  const hooks = own(value, 'hooks')
  if (!Array.isArray(hooks)) fail(source, `${path}.hooks`, `expected an array of hooks, got ${show(hooks)}`)
  return hooks.map((hook, index) => parseHandler(hook, source, `${path}.hooks[${index}]`, kind, event, { text: text as string | undefined, fn }))
}

/**
 * The hooks of a settings document's `hooks` value (the object keyed by event).
 * `source` names the file in errors; `base` is the JSON path of the value.
 */
export function parseHooks(value: unknown, source: string, kind: SourceKind, base = 'hooks'): HookSpec[] {
  if (!isObject(value)) fail(source, base, `expected an object keyed by hook event, got ${show(value)}`)
  const specs: HookSpec[] = []
  for (const event of HOOK_EVENTS) {
    const groups = own(value, event)
    if (groups === undefined) continue
    const path = `${base}.${event}`
    if (!Array.isArray(groups)) fail(source, path, `expected an array of matcher groups, got ${show(groups)}`)
    groups.forEach((group, index) => specs.push(...parseGroup(group, source, `${path}[${index}]`, kind, event)))
  }
  return specs
}

/** The hooks of a whole settings file's text. */
export function parseSettingsText(text: string, file: string, kind: SourceKind): HookSpec[] {
  return hooksOf(parseSettingsDocument(text, file), file, kind)
}

/** Read and parse one settings file; `undefined` when it does not exist. */
export function readSettingsFile(file: string, kind: SourceKind): HookSpec[] | undefined {
  const document = readSettingsDocument(file)
  return document === undefined ? undefined : hooksOf(document, file, kind)
}

function hooksOf(document: Record<string, unknown>, file: string, kind: SourceKind): HookSpec[] {
  const hooks = own(document, 'hooks')
  return hooks === undefined ? [] : parseHooks(hooks, file, kind)
}
