/**
 * The tool registry: definitions by name (a `Map`: names from a model are
 * hostile, `__proto__` is just a key), their owners, guards, and the derived
 * views (schemas, wire schemas) cached until the registry changes.
 */
import type { Context } from 'cordis'
import { KernelError } from '@dsh/kernel'
import { filterOf } from '@dsh/kernel/internals'
import { isSandboxMode } from './required-mode.js'
import { transportSchema } from './code-mode/transport-schema.js'
import { annotationsProblem, outputSchemaProblem } from './definition-checks.js'
import type { ToolSchema } from './tool-schema.js'
import { compileCheck, schemaProblem, type ArgumentCheck, type OutputCheck } from './validate.js'
import type { Guard, ToolDefinition, ToolScope, ToolsMode } from './types.js'

export const RESERVED_TOOL = 'run_code'
const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/

export interface ToolEntry {
  def: ToolDefinition
  /** the frozen `{ name, description, parameters }` projection */
  schema: ToolSchema
  owner: Context
  /** plugin name of the owner, for messages and inspection */
  ownerName: string
  reserved: boolean
  check?: ArgumentCheck
  /** the compiled `outputSchema` check, on first use */
  outputCheck?: OutputCheck
}

export interface GuardEntry {
  fn: Guard
  owner: Context
  ownerName: string
}

function visibleTo(scope: ToolScope | undefined, owner: Context): boolean {
  if (!scope) return true
  const filter = filterOf(scope)
  return !filter || filter(owner)
}

export class Registry {
  readonly tools = new Map<string, ToolEntry>()
  /** copy-on-write: a call holds the array it started with */
  guards: readonly GuardEntry[] = Object.freeze([])
  private schemaCache?: readonly ToolSchema[]
  private wireCache?: readonly ToolSchema[]

  constructor(public mode: ToolsMode, private onChange: () => void) {}

  /** Check a definition; throws a KernelError naming the tool and owner. */
  validate(def: ToolDefinition, owner: string, reserved: boolean): void {
    const problem = this.problemOf(def, reserved)
    if (!problem) return
    const name = (def as any)?.name
    throw new KernelError(problem[0], `tool ${JSON.stringify(name)} (plugin ${owner}): ${problem[1]}`, { details: { tool: name, plugin: owner } })
  }

  private problemOf(def: ToolDefinition, reserved: boolean): [code: 'INVALID_TOOL' | 'DUPLICATE_TOOL', message: string] | undefined {
    if (def === null || typeof def !== 'object') return ['INVALID_TOOL', 'a definition must be an object']
    const name = def.name
    if (typeof name !== 'string' || !NAME.test(name)) return ['INVALID_TOOL', `the name must match ${NAME}`]
    if (name === RESERVED_TOOL && !reserved) return ['INVALID_TOOL', `"${RESERVED_TOOL}" is reserved for code mode`]
    const existing = this.tools.get(name)
    if (existing) return ['DUPLICATE_TOOL', `already registered by plugin ${existing.ownerName}`]
    if (typeof def.description !== 'string') return ['INVALID_TOOL', 'description must be a string']
    if (def.title !== undefined && typeof def.title !== 'string') return ['INVALID_TOOL', 'title must be a string']
    const annotations = annotationsProblem(def.annotations)
    if (annotations) return ['INVALID_TOOL', annotations]
    const output = outputSchemaProblem(def.outputSchema)
    if (output) return ['INVALID_TOOL', output]
    if (typeof def.execute !== 'function') return ['INVALID_TOOL', 'execute must be a function']
    const problem = schemaProblem(def.parameters)
    if (problem) return ['INVALID_TOOL', problem]
    if (def.timeoutMs !== undefined && !(Number.isFinite(def.timeoutMs) && def.timeoutMs > 0)) return ['INVALID_TOOL', 'timeoutMs must be a positive number']
    if (def.requiredMode !== undefined && typeof def.requiredMode !== 'function' && !isSandboxMode(def.requiredMode)) {
      return ['INVALID_TOOL', 'requiredMode must be read-only, workspace-write, danger-full-access or a function of the arguments']
    }
    if (def.concurrency !== undefined && def.concurrency !== 'parallel' && def.concurrency !== 'exclusive' && typeof def.concurrency !== 'function') {
      return ['INVALID_TOOL', 'concurrency must be "parallel", "exclusive" or a function']
    }
    if (def.prompt !== undefined && typeof def.prompt !== 'string') return ['INVALID_TOOL', 'prompt must be a string']
    if (def.finalizeContent !== undefined && typeof def.finalizeContent !== 'function') return ['INVALID_TOOL', 'finalizeContent must be a function']
  }

  add(entry: ToolEntry): void {
    this.tools.set(entry.def.name, entry)
    this.changed()
  }

  /** Remove `entry` if it is still the one registered under its name. */
  remove(entry: ToolEntry): void {
    if (this.tools.get(entry.def.name) !== entry) return
    this.tools.delete(entry.def.name)
    this.changed()
  }

  addGuard(entry: GuardEntry): () => void {
    this.guards = Object.freeze([...this.guards, entry])
    return () => {
      this.guards = Object.freeze(this.guards.filter((g) => g !== entry))
    }
  }

  /** The visible entry of `name` (public view, unchanged by mode). */
  get(name: string, scope?: ToolScope): ToolEntry | undefined {
    const entry = typeof name === 'string' ? this.tools.get(name) : undefined
    if (!entry || !visibleTo(scope, entry.owner)) return
    return entry
  }

  /**
   * The entry a call may execute. Under `code`, a model-direct call (not
   * nested) may only name the reserved transport: every other name is
   * collapsed to "unknown" here, before any policy runs.
   */
  resolveExecution(name: string, nested: boolean, scope?: ToolScope, visible?: ToolEntry): ToolEntry | undefined {
    if (this.collapses(name, nested)) return
    // `visible`: the caller's own `get(name, scope)`, so a call makes one lookup, not two
    return visible ?? this.get(name, scope)
  }

  collapses(name: string, nested: boolean): boolean {
    if (name === RESERVED_TOOL) {
      // the transport runs only where it is advertised, and never from inside a program
      return this.mode === 'native' || nested
    }
    return this.mode === 'code' && !nested
  }

  /** The argument check of an entry, compiled on first use. */
  checkOf(entry: ToolEntry): ArgumentCheck {
    return (entry.check ??= compileCheck(entry.def.parameters))
  }

  /** Every visible tool's projection (the SDK view; `run_code` excluded). */
  schemas(scope?: ToolScope): readonly ToolSchema[] {
    if (!scope && this.schemaCache) return this.schemaCache
    const list: ToolSchema[] = []
    for (const entry of this.tools.values()) {
      if (entry.reserved || !visibleTo(scope, entry.owner)) continue
      list.push(entry.schema)
    }
    Object.freeze(list)
    if (!scope) this.schemaCache = list
    return list
  }

  /** What the model is sent: native → all; code → run_code only; both → all + run_code. */
  wireSchemas(scope?: ToolScope): readonly ToolSchema[] {
    if (!scope && this.wireCache) return this.wireCache
    let list: readonly ToolSchema[]
    if (this.mode === 'native') list = this.schemas(scope)
    else {
      // the transport's projection (its description holds the SDK declarations) only where it is sent
      const transport = this.get(RESERVED_TOOL, scope)
      const projection = transport && transportSchema(transport.schema, this.schemas(scope))
      if (this.mode === 'code') list = Object.freeze(projection ? [projection] : [])
      else list = Object.freeze([...this.schemas(scope), ...(projection ? [projection] : [])])
    }
    if (!scope) this.wireCache = list
    return list
  }

  setMode(mode: ToolsMode): void {
    if (mode === this.mode) return
    this.mode = mode
    this.changed()
  }

  private changed(): void {
    this.schemaCache = undefined
    this.wireCache = undefined
    this.onChange()
  }
}
