/**
 * The `tools` service: registration tied to the calling plugin, guards, the
 * public views, and `execute` — the four-gate pipeline. The per-call path holds
 * raw references (registry, listener lists) and never goes through cordis's
 * context proxies.
 */
import { Context, Service } from 'cordis'
import { KernelError, listenerList, ownerName } from '@dsh/kernel'
import { detachServiceContext, exposeService, raw, unwrapArgument } from '@dsh/kernel/internals'
import './events.js'
import type { ApprovalGate } from './approval-gate.js'
import { runPipeline } from './pipeline/run.js'
import type { PipelineEnv, SandboxModes } from './pipeline/state.js'
import { Registry, RESERVED_TOOL, type GuardEntry, type ToolEntry } from './registry.js'
import { projectSchema, type ToolSchema } from './tool-schema.js'
import { ScopedRegistrations } from './owners.js'
import { classify } from './scheduler.js'
import { compileAhead } from './compile-ahead.js'
import type { Concurrency, ExecuteInput, Guard, ParentToken, ToolDefinition, ToolResult, ToolScope, ToolsMode } from './types.js'

declare module 'cordis' {
  interface Context {
    tools: ToolService
  }
}

export interface ToolsConfig {
  /** native: tools are called directly; code: only through run_code; both */
  mode?: ToolsMode
}

const MODES: readonly ToolsMode[] = ['native', 'code', 'both']
/** Methods that never read `this.ctx`: read through a plugin's trace without its traps (see exposeService). */
const DIRECT_METHODS = ['get', 'schemas', 'wireSchemas', 'execute', 'concurrency'] as const

export class ToolService extends Service {
  private registry: Registry
  private env: PipelineEnv
  private root: Context
  private changePending = false
  private scoped = new ScopedRegistrations()

  constructor(ctx: Context, config: ToolsConfig = {}) {
    super(ctx, 'tools', true)
    const mode = config.mode ?? 'native'
    if (!MODES.includes(mode)) throw new KernelError('INVALID_CONFIG', `tools.mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`)
    this.root = ctx.root
    this.registry = new Registry(mode, () => this.scheduleChange())
    this.env = {
      registry: this.registry,
      lists: {
        pre: listenerList(ctx, 'tools/pre-execute'),
        around: listenerList(ctx, 'tools/execute'),
        post: listenerList(ctx, 'tools/post-execute'),
        result: listenerList(ctx, 'tools/result'),
      },
      approval: () => this.root.get('approval') as ApprovalGate | undefined,
      sandbox: () => this.root.get('sandbox') as SandboxModes | undefined,
      tokens: new WeakSet(),
    }
    // a shadow context per traced member access was most of the cost of a registration
    detachServiceContext(this)
    // `ctx.tools` is read on every public call (`ctx.tools.execute`): skip cordis's costly service lookup;
    // the methods that never read `this.ctx` skip the trace's traps too (a plugin's per-call lookup)
    exposeService(ctx, 'tools', DIRECT_METHODS)
    ctx.on('tools/idle', (idle) => compileAhead(this.registry, idle))
  }

  get mode(): ToolsMode {
    return this.registry.mode
  }

  /** Register a tool, tied to the calling plugin's scope. */
  register(def: ToolDefinition): () => void {
    // `this` is cordis's trace: `this.ctx` is the caller's context; the work is done on the raw service
    return raw(this).add(this.ctx, def, false)
  }

  /** Register the reserved `run_code` transport (code mode only). */
  registerTransport(def: ToolDefinition): () => void {
    return raw(this).addTransport(this.ctx, def)
  }

  private addTransport(owner: Context, def: ToolDefinition): () => void {
    if (def?.name !== RESERVED_TOOL) throw new KernelError('INVALID_TOOL', `the transport must be named ${RESERVED_TOOL}`)
    return this.add(owner, def, true)
  }

  private add(owner: Context, def: ToolDefinition, reserved: boolean): () => void {
    const name = ownerName(owner)
    this.registry.validate(def, name, reserved)
    // tied to the caller's scope before anything is added: an inactive scope throws here
    const live = this.scoped.of(owner)
    // Object.assign copies about three times faster than a spread that is then frozen; a definition
    // with an own `__proto__` key (it would re-prototype the copy through the setter) takes the spread
    const frozen = Object.freeze(Object.hasOwn(def, '__proto__') ? { ...def } : Object.assign({}, def))
    const schema = projectSchema(frozen)
    const entry: ToolEntry = { def: frozen, schema, owner, ownerName: name, reserved }
    this.registry.add(entry)
    let removeSection: (() => void) | undefined
    const dispose = () => {
      if (!live.delete(dispose)) return
      removeSection?.()
      this.registry.remove(entry)
    }
    live.add(dispose)
    if (def.prompt) {
      try {
        removeSection = this.root.get('systemPrompt')?.section({ id: `tool:${def.name}`, text: def.prompt })
      } catch (error) {
        dispose()
        throw error
      }
    }
    return dispose
  }

  /** Add a guard, tied to the calling plugin: `fn(exec)` returns a reason to deny. */
  guard(fn: Guard): () => void {
    return raw(this).addGuard(this.ctx, fn)
  }

  private addGuard(owner: Context, fn: Guard): () => void {
    if (typeof fn !== 'function') throw new KernelError('INVALID_CONFIG', 'a guard must be a function')
    // a function passed through cordis's service proxy arrives wrapped in a tracing proxy
    // (~µs per call): keep the original, as the waterfall does for listeners
    fn = unwrapArgument(fn)
    const registry = this.registry
    const live = this.scoped.of(owner)
    const remove = registry.addGuard({ fn, owner, ownerName: ownerName(owner) })
    const dispose = () => {
      if (live.delete(dispose)) remove()
    }
    live.add(dispose)
    return dispose
  }

  /** The visible definition of `name` (unchanged by mode). */
  get(name: string, scope?: ToolScope): ToolDefinition | undefined {
    return this.registry.get(name, scope)?.def
  }

  /** Every visible tool's `{ name, title?, description, parameters, annotations?, outputSchema? }` (the SDK projection). */
  schemas(scope?: ToolScope): readonly ToolSchema[] {
    return this.registry.schemas(scope)
  }

  /** What the model is sent, per mode. */
  wireSchemas(scope?: ToolScope): readonly ToolSchema[] {
    return this.registry.wireSchemas(scope)
  }

  /** Run one call through the pipeline. Never rejects. */
  execute(input: ExecuteInput): Promise<ToolResult> {
    // through a caller's trace `this.env` is a full trap; the raw service is one symbol read away
    return runPipeline(raw(this).env, input)
  }

  /** The concurrency class of a call (exclusive when unsure). */
  concurrency(name: string, args: unknown, scope?: ToolScope): Concurrency {
    return classify(this.registry.get(name, scope)?.def, args)
  }

  /**
   * Run `change` as a barrier: calls that start meanwhile wait until it
   * settles; calls already running keep the gate set they started with.
   */
  async exclusive<T>(change: () => Promise<T>): Promise<T> {
    const env = raw(this).env
    while (env.barrier) await env.barrier
    let release!: () => void
    env.barrier = new Promise<void>((resolve) => (release = resolve))
    try {
      return await change()
    } finally {
      env.barrier = undefined
      release()
    }
  }

  /** A parent token for sub-dispatches of the `run_code` call `callId`. Only the kernel issues these. */
  issueParentToken(callId: string): ParentToken {
    const token: ParentToken = Object.freeze({ callId })
    this.env.tokens.add(token)
    return token
  }

  setMode(mode: ToolsMode): void {
    if (!MODES.includes(mode)) throw new KernelError('INVALID_CONFIG', `tools.mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`)
    this.registry.setMode(mode)
  }

  /** Registered tools with owners (for inspection). */
  entries(): readonly ToolEntry[] {
    return [...this.registry.tools.values()]
  }

  /** Registered guards with owners (for inspection). */
  guards(): readonly GuardEntry[] {
    return this.registry.guards
  }

  private scheduleChange(): void {
    if (this.changePending) return
    this.changePending = true
    queueMicrotask(() => {
      this.changePending = false
      this.root.emit('tools/change')
    })
  }
}
