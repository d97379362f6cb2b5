/**
 * mcp-servers: upstream MCP servers behind dsh (DESIGN §16.3). Each server's
 * tools become dsh tools named `mcp__<server>__<tool>`, so every call goes
 * through the whole pipeline; a stdio server runs confined by the sandbox,
 * an HTTP server is reached through the network policy. The servers live in
 * the kernel's pool (pool.ts), so a reload that leaves a server's config as
 * it was leaves its process running.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { canonicalJson, describeError, KernelError, type Session } from '@dsh/kernel'
import type {} from '@dsh/sandbox'
import type {} from '@dsh/tools'
import { Config, isHttp, serverConfigProblem, type ServerConfig } from './config.js'
import './events.js'
import { serverNameProblem, toolName, toolNameProblem } from './names.js'
import { poolFor } from './pool.js'
import { readSources } from './sources.js'
import { UpstreamServer, type ServerOwner } from './server.js'
import { upstreamTool } from './tools.js'

export const name = 'mcp-servers'
/** `tools`: where upstream tools are registered; `sandbox`: confinement and the network policy; `sessions`: where HTTP servers' connections are recorded */
export const inject = ['tools', 'sandbox', 'sessions']
export { Config }

/** The servers of this config: inline ones first (they win), then the sources', minus `exclude`. */
async function gather(ctx: Context, config: Config, workspace: string): Promise<Map<string, ServerConfig>> {
  for (const [server, serverConfig] of Object.entries(config.servers)) {
    const problem = serverConfigProblem(server, serverConfig)
    if (problem) throw new KernelError('INVALID_CONFIG', `mcp-servers: ${problem}`, { details: { path: `servers.${server}` } })
  }
  const servers = new Map<string, ServerConfig>(Object.entries(config.servers))
  const read = await readSources(config.sources, { cwd: workspace, env: process.env })
  for (const problem of read.problems) ctx.logger('mcp-servers').warn(problem)
  for (const [server, found] of read.servers) if (!servers.has(server)) servers.set(server, found)
  for (const excluded of config.exclude) servers.delete(excluded)
  for (const server of servers.keys()) {
    const problem = serverNameProblem(server)
    if (problem) throw new KernelError('INVALID_CONFIG', `mcp-servers: servers.${server}: ${problem}`, { details: { path: `servers.${server}` } })
  }
  return servers
}

export async function apply(ctx: Context, config: Config): Promise<void> {
  const sandbox = ctx.sandbox
  const workspace = sandbox.defaults.workspace
  const servers = await gather(ctx, config, workspace)
  const logger = ctx.logger('mcp-servers')
  const pool = poolFor(ctx)
  let active = true
  ctx.on('dispose', () => {
    active = false
  })
  let recordSession: Session | undefined
  // Why a session of its own: an HTTP server's connections outside any call are recorded too (sandbox/network);
  // one per kernel, as two dsh processes on one workspace must not append to one log
  const recorder = () => ({ session: (recordSession ??= ctx.sessions.open({ id: `mcp-servers-${randomUUID()}` })), callId: 'mcp-servers' })
  const limits = {
    initializeTimeoutMs: config.initializeTimeoutMs, callTimeoutMs: config.callTimeoutMs, maxFailures: config.maxFailures,
    restartBackoffMs: config.restartBackoffMs, maxMessageBytes: config.maxMessageBytes, stderrTailBytes: config.stderrTailBytes,
    maxNotificationsPerSecond: config.maxNotificationsPerSecond, idleTimeoutMs: config.idleTimeoutMs,
  }
  const starts: Promise<unknown>[] = []
  for (const [serverName, serverConfig] of servers) {
    const mode = isHttp(serverConfig) ? sandbox.defaults.mode : serverConfig.sandbox?.mode ?? sandbox.defaults.mode
    // a server is reused across a reload only when nothing that shapes it changed
    const key = canonicalJson({ serverConfig, limits, mode, workspace } as any)
    const server = pool.acquire(serverName, key, () => new UpstreamServer(serverName, serverConfig, limits, { sandbox, workspace, mode: sandbox.defaults.mode, recorder }))
    const registered: Array<() => void> = []
    const unregister = () => {
      for (const dispose of registered.splice(0)) dispose()
    }
    const owner: ServerOwner = {
      tools: (tools) => {
        if (!active) return
        unregister()
        for (const tool of tools) {
          const disposer = registerTool(ctx, server, tool, config.maxResultBytes)
          if (disposer) registered.push(disposer)
        }
      },
      exited: (info) => {
        logger.warn(`MCP server ${info.server} was given up after ${info.failures} failures in a row: ${info.reason}`)
        observe(ctx, 'mcp-servers/exited', info)
      },
      warn: (message) => logger.warn(message),
    }
    server.owner = owner
    ctx.on('dispose', () => {
      unregister()
      if (server.owner === owner) server.owner = undefined
      pool.release(serverName, server)
    })
    // an adopted server (a reload that left it as it was) already knows its tools, resting or not
    if (server.state === 'ready' || server.state === 'resting') owner.tools(server.tools)
    // (a server given up has been said by exited)
    else starts.push(server.start().catch((error) => server.state === 'failed' || logger.warn(describeError(error))))
  }
  if (config.start === 'eager') await Promise.all(starts)
}

/** Register one upstream tool, or say why it is skipped (a name dsh cannot take, a schema the registry refuses). */
function registerTool(ctx: Context, server: UpstreamServer, tool: Tool, maxResultBytes: number): (() => void) | undefined {
  const problem = toolNameProblem(server.name, tool.name)
  if (problem) return skip(ctx, server.name, String(tool.name), problem)
  try {
    return ctx.tools.register(upstreamTool(server, tool, maxResultBytes))
  } catch (error) {
    return skip(ctx, server.name, tool.name, describeError(error))
  }
}

function skip(ctx: Context, server: string, tool: string, reason: string): undefined {
  ctx.logger('mcp-servers').warn(`MCP server ${server}: tool ${JSON.stringify(tool.slice(0, 80))} is skipped (${toolName(server, tool.slice(0, 80))}): ${reason}`)
  observe(ctx, 'mcp-servers/skipped', { server, tool, reason })
  return undefined
}

/** Tell the listeners; one that throws is logged, never a crash of the server's lifecycle. */
function observe<K extends 'mcp-servers/exited' | 'mcp-servers/skipped'>(ctx: Context, event: K, info: Parameters<import('cordis').Events[K]>[0]): void {
  try {
    ;(ctx.emit as any)(event, info)
  } catch (error) {
    ctx.logger('mcp-servers').warn(`a listener of ${event} threw: ${describeError(error)}`)
  }
}
