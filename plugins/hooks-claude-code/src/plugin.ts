/** hooks-claude-code: Claude Code and Codex command hooks as gate listeners, registered before the settings load so no call slips past them (docs/architecture.md, Hooks). */
import type { Context } from 'cordis'
import { resolve } from 'node:path'
import type {} from '@dsh/approval'
import type { ApprovalOutcome, BlockDecision, DecisionSource, PreToolDecision, ToolResult } from '@dsh/tools'
import { claudeToolNamer, fileStamp, watchFiles } from '@dsh/claude-code-settings'
import { loadShellParser, shellParserLoaded } from '@dsh/claude-code-permissions'
import type { Config } from './config.js'
import { NO_HOOKS, runEvent, type DispatchEnv } from './dispatch.js'
import { hookRunsTwice } from './mcp-names.js'
import { hookScripts } from './hook-scripts.js'
import { createLauncher } from './launch.js'
import { RELOAD_DEBOUNCE_MS } from './limits.js'
import { describeSandbox, ledgerReader, protectFiles, refusal, type SandboxLike } from './protect.js'
import { INLINE_SOURCE, parseHooks } from './settings.js'
import { Notices } from './notices.js'
import { HookStore, type FileSource, type Snapshot } from './store.js'

declare module 'cordis' {
  interface Events {
    /** settings files were re-read (by the watcher or before a call); `problems` are those now standing */
    'hooks/reloaded'(report: { files: string[]; problems: string[] }): void
  }
}

export { Config } from './config.js'
export const name = 'hooks-claude-code'
/** `sandbox` (optional): asked whether it keeps the settings files read-only for confined commands */
export const inject = { optional: ['sandbox'] }

async function prepare(ctx: Context, config: Config, launcher: DispatchEnv['launcher'], guard: { current?: ReturnType<typeof scriptGuard> }): Promise<DispatchEnv> {
  const workspace = resolve(config.workspace ?? process.cwd())
  const roots = [workspace, ...(config.writableRoots ?? []).map((root) => resolve(workspace, root))]
  const inline = parseHooks(config.hooks ?? {}, INLINE_SOURCE, 'claude')
  const sources: FileSource[] = [
    ...(config.settingsFiles ?? []).map((file) => ({ file: resolve(workspace, file), kind: 'claude' as const })),
    ...(config.codexFiles ?? []).map((file) => ({ file: resolve(workspace, file), kind: 'codex' as const })),
  ]
  // the service as any plugin reads it (cordis's traceable): registrations through it leave with this plugin,
  // so the files are protected like `.claude/` (and the description says how), wherever they are, before describing
  const sandbox = ctx.get('sandbox') as SandboxLike | undefined
  const registered = protectFiles(sandbox, sources.map((source) => source.file))
  const view = await describeSandbox(sandbox, workspace, registered)
  const store = new HookStore(inline, sources, (file) => refusal(file, roots, view, registered), ledgerReader(sandbox, roots, view, fileStamp))
  const logger = ctx.logger('hooks-claude-code')
  const scripts = scriptGuard(sandbox, workspace, (line) => logger.warn('%s', line))
  guard.current = scripts
  scripts.update(store.init())
  // the hooks' own scripts are protected before the first call; a parser that cannot load refuses every call
  await scripts.pending()

  const twice = new Set<string>()
  // said once per hook: it runs in the client on its call to dsh's tool, and again here
  const sayTwice = (snapshot: Snapshot) => {
    for (const hook of snapshot.hooks) {
      const key = `${hook.source}\0${hook.path}`
      // a catch-all hook (no matcher, `*`) is meant for every call, so it is not warned about; hookRunsTwice still answers for it (dsh doctor)
      const catchAll = hook.matcherText === undefined || hook.matcherText === '' || hook.matcherText === '*'
      if ((hook.event !== 'PreToolUse' && hook.event !== 'PostToolUse') || catchAll || twice.has(key) || !hookRunsTwice(hook.matcherText)) continue
      twice.add(key)
      logger.warn('%s: %s: the matcher %s takes dsh\'s tools by their mcp__dsh__ names, so when Claude Code calls dsh with these settings the hook runs twice for a call: once in Claude Code, once in dsh (match the built-in name alone, e.g. Bash, for once)', hook.source, hook.path, JSON.stringify(hook.matcherText ?? '*'))
    }
  }
  // said at the first call's look, not at the start: reading the files then would lease them
  let said = false
  const refresh = (): Snapshot => {
    const changed: string[] = []
    const snapshot = store.refresh(changed)
    if (!said || changed.length) {
      said = true
      sayTwice(snapshot)
    }
    if (changed.length) {
      scripts.update(snapshot)
      for (const problem of snapshot.problems) {
        logger.warn('%s (%s)', problem.message, config.onError === 'deny' ? 'every call is refused until it is fixed' : 'the last good hooks keep running')
      }
      ctx.emit('hooks/reloaded', { files: changed, problems: snapshot.problems.map((problem) => problem.message) })
    }
    return snapshot
  }
  if (config.watch !== false && store.files().length) {
    ctx.effect(() => watchFiles(store.files(), refresh, RELOAD_DEBOUNCE_MS))
  }
  return {
    refresh,
    launcher,
    workspace,
    onError: config.onError ?? 'deny',
    defaultTimeout: config.defaultTimeout ?? 600,
    maxOutputBytes: config.maxOutputBytes ?? 8 * 1024 * 1024,
    auditBytes: config.auditBytes ?? 4096,
    toolName: claudeToolNamer(config.toolNames ?? {}),
    reported: new WeakMap(),
  }
}

/**
 * Keeps the files the hook commands run registered with the sandbox as
 * protected (hook-scripts.ts), re-registered when the hook set changes.
 * What cannot be known before a hook runs is said once per command. The
 * shell parser is loaded only once there are hooks (a project without any
 * never pays for it); until it is, `pending()` holds every call.
 */
function scriptGuard(sandbox: SandboxLike | undefined, workspace: string, warn: (line: string) => void) {
  let key = ''
  let release: (() => void) | undefined
  let latest: Snapshot | undefined
  let loading: Promise<void> | undefined
  const said = new Set<string>()
  const apply = (snapshot: Snapshot): void => {
    const { files, unknown } = hookScripts(snapshot.hooks.map((hook) => hook.command), workspace)
    for (const line of unknown) {
      if (said.has(line)) continue
      said.add(line)
      warn(`hook ${line}: dsh cannot protect what it runs, so a confined command may be able to change it`)
    }
    const next = files.join('\0')
    if (next === key || typeof sandbox?.protect !== 'function') return
    // the new set first: no moment when a file of both sets is unprotected
    const previous = release
    release = files.length ? sandbox.protect(files) : undefined
    previous?.()
    key = next
  }
  return {
    update(snapshot: Snapshot): void {
      latest = snapshot
      if (!snapshot.hooks.length || shellParserLoaded()) return apply(snapshot)
      loading ??= loadShellParser().then(() => apply(latest!)).finally(() => {
        loading = undefined
      })
      // the failure is the waiting calls' to report (they are refused); the next update tries again
      loading.catch(() => {})
    },
    /** set while the parser loads for a new hook set: calls wait for the registration (and are refused if it fails) */
    pending(): Promise<void> | undefined {
      return loading
    },
  }
}

/** The hook command(s) that decided, for the result's error.source (none: the settings themselves refused). */
function hookSource(verdict: { command?: string }): DecisionSource {
  return verdict.command !== undefined ? { kind: 'hook', detail: verdict.command } : { kind: 'hook' }
}

export async function apply(ctx: Context, config: Config): Promise<void> {
  const launcher = createLauncher()
  // hooks still running when the plugin goes away are killed with their process groups
  ctx.effect(() => () => launcher.killAll())
  const guard: { current?: ReturnType<typeof scriptGuard> } = {}
  const ready = prepare(ctx, config, launcher, guard)
  // a call waiting on a failed load is refused by the pipeline (a throwing listener denies or blocks)
  ready.catch(() => {})

  // set once loaded: a call then goes straight through when no hook applies (see runEvent)
  let env: DispatchEnv | undefined
  const run = (event: Parameters<typeof runEvent>[1], exec: Parameters<typeof runEvent>[2], result?: ToolResult) =>
    env ? runEvent(env, event, exec, result) : ready.then((loaded) => runEvent(loaded, event, exec, result))

  ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
    // reads the settings again first: a changed hook set may start loading the parser
    const pending = run('PreToolUse', exec)
    // a new hook set's scripts are registered before the call goes on (see scriptGuard)
    const registering = guard.current?.pending()
    if (registering) await registering
    if (pending === NO_HOOKS) return next()
    const verdict = await pending
    // a hook's deny stands: the listeners after this one never get to weaken it
    if (verdict.kind === 'deny') return { kind: 'deny', reason: verdict.reason, source: hookSource(verdict) }
    const after = await next()
    if (verdict.kind !== 'ask' || after.kind === 'deny') return after
    if (after.kind === 'allow') return { kind: 'ask', reason: verdict.reason, source: hookSource(verdict) }
    // both ask: one question with both reasons, keeping the explicit sandbox mode the other asked for
    return { ...after, reason: [verdict.reason, after.reason].filter((reason) => reason).join('; '), source: hookSource(verdict) }
  })

  const notices = new Notices(() => ready, () => env)
  // PermissionRequest hooks answer before any person is asked (prepended), as Claude Code runs them before its dialog
  ctx.on('approval/request', async (request, next): Promise<ApprovalOutcome> => {
    const verdict = await run('PermissionRequest', request.exec)
    if (verdict.kind === 'allow') return { kind: 'approved', grant: 'once' }
    if (verdict.kind === 'deny') return { kind: 'denied', reason: verdict.reason }
    // the question goes on to the approvers: the person's desktop-notification hooks fire now
    notices.permissionPrompt(request)
    return next()
  }, true)

  ctx.on('session/opened', (session, { source }) => notices.sessionStart(session, source))
  ctx.on('session/ending', (session, { reason }) => notices.sessionEnd(session, reason))

  ctx.on('tools/post-execute', async (input, next): Promise<ToolResult | BlockDecision> => {
    const { exec, result } = input
    // an aborted call already ended in an error result; its hooks would be killed at once
    if (exec.signal.aborted) return next()
    const pending = run(result.isError ? 'PostToolUseFailure' : 'PostToolUse', exec, result)
    if (pending === NO_HOOKS) return next()
    const verdict = await pending
    if (verdict.kind === 'block') return { kind: 'block', feedback: verdict.reason, source: hookSource(verdict) }
    return next()
  })

  env = await ready
}
