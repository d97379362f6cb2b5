/** claude-code-permissions: settings files' `permissions` (and Codex's approval policies) as a gate-1 listener whose allow only passes the call on, so it never overrides a later denial (its README). */
import type { Context } from 'cordis'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { CLAUDE_TOOL_NAMES, claudeToolNamer, settingsFiles, watchFiles } from '@dsh/claude-code-settings'
import type { JsonObject } from '@dsh/kernel'
import type { ApprovalGate, DecisionSource, Execution, PreToolDecision } from '@dsh/tools'
import type { Config } from './config.js'
import { decide, type Outcome } from './decide.js'
import { decideExec, execNeeds, execPrograms, execRulesApply, type ExecFacts } from './exec-decide.js'
import { execChecker, type ExecCheck } from './exec-check.js'
import { isMode, type PermissionMode } from './modes.js'
import { onFailureRerun } from './on-failure.js'
import { loadShellParser, shellParserLoaded } from './shell.js'
import { warmShellParser } from './shell-warm-up.js'
import { sandboxRestriction, type SandboxRestriction } from './sandbox-feed.js'
import { rootOf, RuleStore, type SettingsSource } from './store.js'

/** What `permission/decided` records. */
export interface PermissionDecided {
  callId: string
  name: string
  decision: 'allow' | 'ask' | 'deny'
  mode: PermissionMode
  rule?: string
  source?: string
  /** `exec`: one exec inside the confined call, stopped by the sandbox (absent: the call itself) */
  by?: 'exec'
  /** for `by: 'exec'`: the program's real path (or the path it was exec'd by) and its argv */
  program?: string
  argv?: string[]
}

/** A decision without a call: what `dsh permissions check` prints. */
export interface PermissionCheck extends Omit<PermissionDecided, 'callId'> {
  reason: string
  /** the name rules saw */
  ruleTool: string
}

export interface PermissionView {
  mode: PermissionMode
  preset?: string
  files: string[]
  rules: PermissionRuleView[]
}

/** One effective rule and where it came from, for inspection. */
export interface PermissionRuleView {
  list: 'allow' | 'ask' | 'deny'
  rule: string
  source: string
}

declare module 'cordis' {
  interface Events {
    /** the settings files were re-read; `problem` set when they could not be, and the previous rules stay */
    'permissions/reloaded'(report: { files: string[]; problem?: string }): void
    /** decide a call without running it (the first listener's answer wins; it may be a promise) */
    'permissions/check'(name: string, args: JsonObject): PermissionCheck | Promise<PermissionCheck> | undefined
    /** decide one exec inside a confined call (its argv; the program's real path when known) without running it */
    'permissions/check-exec'(exec: { argv: string[]; realPath?: string }): PermissionCheck | Promise<PermissionCheck> | undefined
    /** the effective rules, the mode and the files read */
    'permissions/rules'(): PermissionView | undefined
  }
}

declare module '@dsh/kernel' {
  interface SessionEvents {
    'permission/decided': PermissionDecided
  }
}

export { Config } from './config.js'
export const name = 'claude-code-permissions'
export const inject = { required: ['tools'], optional: ['sandbox'] }

const RELOAD_DEBOUNCE_MS = 50

function sources(config: Config, workspace: string, home: string): SettingsSource[] {
  if (config.settingsFiles) return config.settingsFiles.map((file) => ({ file: resolve(workspace, file), root: rootOf(resolve(workspace, file), workspace) }))
  return settingsFiles({ workspace, home }).map(({ scope, file }) => ({ file, root: scope === 'user' ? home : workspace }))
}

async function prepare(ctx: Context, config: Config) {
  const sandbox = ctx.get('sandbox') as { defaults?: { workspace?: string }; protect?(paths: string[]): () => void } | undefined
  const workspace = resolve(config.workspace ?? sandbox?.defaults?.workspace ?? process.cwd())
  const home = resolve(config.home ?? homedir())
  const toolName = claudeToolNamer(config.toolNames ?? {})
  const extraTools = new Set([...Object.values(CLAUDE_TOOL_NAMES), ...Object.values(config.toolNames ?? {})])
  // the shell grammar is loaded at the first Bash decision, not at start (see shell.ts)
  const files = sources(config, workspace, home)
  // Why: a confined command that rewrites the rules would allow itself its next calls; registered with the
  // sandbox (the traceable service, so the registration leaves with this plugin), each file is kept
  // read-only or put back wherever it lies in a writable root, and refused to write/edit
  if (typeof sandbox?.protect === 'function' && files.length) sandbox.protect(files.map((f) => f.file))
  const store = new RuleStore(files, config.permissions, { workspace, home, extraTools })
  const logger = ctx.logger('claude-code-permissions')
  const refresh = () => {
    const report = store.refresh()
    if (!report.changed) return
    if (report.problem) logger.warn('%s (the previous rules stay until it is fixed)', report.problem)
    ctx.emit('permissions/reloaded', report.problem ? { files: [...store.sources], problem: report.problem } : { files: [...store.sources] })
  }
  ctx.effect(() => watchFiles(store.watched, refresh, RELOAD_DEBOUNCE_MS))

  const modeOf = (): PermissionMode => {
    const set = store.rules
    const inline = config.permissions?.defaultMode
    let mode: PermissionMode = isMode(inline) ? inline : config.defaultMode ?? set.defaultMode?.mode ?? 'default'
    // a managed "disableBypassPermissionsMode" wins over every other source's choice
    if (mode === 'bypassPermissions' && set.bypassDisabled) mode = 'default'
    return mode
  }
  const tools = ctx.get('tools') as { get(name: string): { annotations?: { readOnlyHint?: boolean } } | undefined }
  const roots = new Map(sources(config, workspace, home).map(({ file, root }) => [file, root]))
  const bases = { workspace, home, rootOf: (source: string) => roots.get(source) ?? workspace }
  return {
    refresh,
    ruleTool: toolName,
    restriction(exec: ExecCheck): SandboxRestriction | undefined {
      refresh()
      const restriction = sandboxRestriction(store.rules, bases)
      // Why only then: a call no rule could refuse an exec of runs with no exec stopped at all
      if (!execRulesApply(store.rules)) return restriction
      const programs = execPrograms(store.rules)
      return { ...(restriction ?? { readDeny: [], readOnly: [], unenforced: [] }), exec: programs ? { programs, needs: execNeeds(store.rules), check: exec.check } : { check: exec.check } }
    },
    decideExec(facts: ExecFacts) {
      refresh()
      const set = store.rules
      const mode = modeOf()
      return { outcome: decideExec(facts, set, { set, mode, preset: config.preset, workspace, directories: [workspace, ...set.additionalDirectories] }), mode }
    },
    decide(name: string, args: Readonly<JsonObject>) {
      refresh()
      const set = store.rules
      const mode = modeOf()
      const tool = toolName(name)
      const readOnly = name === 'run_code' || tools.get(name)?.annotations?.readOnlyHint === true
      const outcome = decide({ tool, name, args, readOnly }, { set, mode, preset: config.preset, workspace, directories: [workspace, ...set.additionalDirectories] })
      return { outcome, mode, tool }
    },
    view(): PermissionView {
      refresh()
      return {
        mode: modeOf(),
        ...(config.preset ? { preset: config.preset } : {}),
        files: [...store.sources],
        rules: store.rules.rules.map((rule) => ({ list: rule.list, rule: rule.text, source: rule.source })),
      }
    },
  }
}

/** Who decided, for the result's `error.source`: the rule as written, else the mode's default. */
function decisionSource(outcome: Outcome, mode: PermissionMode): DecisionSource {
  return outcome.rule ? { kind: 'rule', detail: outcome.rule.text } : { kind: 'mode', detail: mode }
}

function record(exec: Pick<Execution, 'callId' | 'name'>, outcome: Outcome, mode: PermissionMode): PermissionDecided {
  const data: PermissionDecided = { callId: exec.callId, name: exec.name, decision: outcome.decision, mode }
  if (outcome.rule) {
    data.rule = outcome.rule.text
    data.source = outcome.rule.source
  }
  return data
}

export async function apply(ctx: Context, config: Config): Promise<void> {
  let loaded: Awaited<ReturnType<typeof prepare>> | undefined
  const ready = prepare(ctx, config)
  // a call waiting on a failed load is refused by the pipeline (a throwing listener denies)
  ready.catch(() => {})
  // the calls under way, by id: an exec that asks is asked for its call (exec-check.ts)
  const calls = new Map<string, Execution>()
  ctx.on('tools/result', (exec) => void calls.delete(exec.callId))
  const execCheck = execChecker({
    engine: () => loaded,
    call: (callId) => calls.get(callId),
    approval: () => ctx.get('approval') as ApprovalGate | undefined,
  })

  ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
    const engine = await ready
    // only a Bash decision reads the command with the grammar; without it, analyzeShell throws and the call is refused
    if (engine.ruleTool(exec.name) === 'Bash' && !shellParserLoaded()) await loadShellParser()
    const { outcome, mode } = engine.decide(exec.name, exec.arguments)
    if (outcome.decision !== 'deny') calls.set(exec.callId, exec)
    // in the file before the call goes on (a failed write throws: the call is refused), held off the heap as its line
    exec.session.write('permission/decided', record(exec, outcome, mode))
    // a rule's deny stands: the listeners after this one never get to weaken it
    if (outcome.decision === 'deny') return { kind: 'deny', reason: outcome.reason, source: decisionSource(outcome, mode) }
    const after = await next()
    if (outcome.decision === 'allow' || after.kind === 'deny') return after
    const ask: PreToolDecision = { kind: 'ask', reason: outcome.reason, source: decisionSource(outcome, mode) }
    if (after.kind === 'ask') {
      ask.reason = [outcome.reason, after.reason].filter((reason) => reason).join('; ')
      if (after.sandboxMode) ask.sandboxMode = after.sandboxMode
    }
    if (outcome.sandboxMode && !ask.sandboxMode) ask.sandboxMode = outcome.sandboxMode
    return ask
  })

  if (config.preset === 'on-failure') {
    const tools = ctx.get('tools') as Parameters<typeof onFailureRerun>[0]['tools']
    const rerun = onFailureRerun({
      tools,
      sandbox: () => ctx.get('sandbox') as ReturnType<Parameters<typeof onFailureRerun>[0]['sandbox']>,
      ruleTool: (name) => (loaded ? loaded.ruleTool(name) : name),
    })
    ctx.on('tools/post-execute', rerun)
  }

  // Why registered before the rules load, and refusing until then: a call confined meanwhile must not run without them.
  // Why through ctx.inject: the sub-plugin is applied again whenever a sandbox service (a new one after a reload) appears
  ctx.inject(['sandbox'], (inner) => {
    const sandbox = (inner as unknown as { sandbox: { restrict?(restrictor: () => SandboxRestriction | undefined): () => void } }).sandbox
    // a sandbox service of another make, without restrict(): the rules bind the file tools only, and that is said
    if (typeof sandbox.restrict !== 'function') return void ctx.logger('claude-code-permissions').warn('the sandbox service has no restrict(): Read and Edit deny rules do not bind confined commands')
    sandbox.restrict(() => {
      if (!loaded) throw new Error('the permission rules of claude-code-permissions are not loaded yet')
      return loaded.restriction(execCheck)
    })
  })

  ctx.on('permissions/check', (name, args) => {
    // answered only once loaded; `dsh permissions check` waits for the plugin to start
    const engine = loaded
    if (!engine) return undefined
    const answer = (): PermissionCheck => {
      const { outcome, mode, tool } = engine.decide(name, args)
      const { callId: _callId, ...data } = record({ callId: '', name }, outcome, mode)
      return { ...data, reason: outcome.reason, ruleTool: tool }
    }
    return shellParserLoaded() || engine.ruleTool(name) !== 'Bash' ? answer() : loadShellParser().then(answer)
  })
  ctx.on('permissions/check-exec', ({ argv, realPath }) => {
    const engine = loaded
    if (!engine) return undefined
    const answer = (): PermissionCheck => {
      const { outcome, mode } = engine.decideExec({ path: argv[0] ?? '', realPath: realPath ?? '', argv, truncated: false })
      const base = { name: 'bash', mode, by: 'exec' as const, program: realPath || argv[0], argv: [...argv], ruleTool: 'Bash' }
      if (!outcome || outcome.decision === 'allow') return { ...base, decision: 'allow', reason: outcome?.reason ?? 'no deny or ask rule meets this exec: it runs (the sandbox still confines it)' }
      return { ...base, decision: outcome.decision, reason: outcome.reason, ...(outcome.rule ? { rule: outcome.rule.text, source: outcome.rule.source } : {}) }
    }
    return shellParserLoaded() ? answer() : loadShellParser().then(answer)
  })
  ctx.on('permissions/rules', () => loaded?.view())
  // Why only with a tool read as Bash: a process that decides no Bash call never loads the grammar (shell.ts)
  ctx.on('tools/idle', (idle) => {
    const tools = ctx.get('tools') as { schemas(): readonly { name: string }[] } | undefined
    void ready.then((engine) => {
      if (tools?.schemas().some((tool) => engine.ruleTool(tool.name) === 'Bash')) warmShellParser(idle)
    }, () => {})
  })

  loaded = await ready
}
