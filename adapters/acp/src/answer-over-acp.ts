/**
 * `answerApprovalsOverAcp()`: the kernel's approval asks put to the editor
 * through ACP `session/request_permission`. The listener lives in a plugin of
 * its own (the disposer removes it), prepended and asking the kernel's own
 * approvers first: the client is asked only when none of them answered, as
 * the MCP server does, whatever order reloads left the listeners in.
 */
import { describeError, type ApprovalOutcome, type Kernel, type Session } from 'dsh'
import { permissionRequest, readPermission } from './permission.js'
import type { AcpToolKind, RequestPermission } from './protocol.js'

export interface AnswerApprovalsOverAcpOptions {
  /** the agent's side of `session/request_permission` on the host's ACP connection */
  requestPermission: RequestPermission
  /** the ACP session the questions belong to */
  sessionId: string
  /** ask only for this kernel session's calls (default: every session of the kernel) */
  session?: Session
  /** the directory relative paths in arguments are shown against (default: the sandbox's workspace) */
  workspace?: string
  /** tool name → ACP tool kind, over the built-in map */
  kinds?: Readonly<Record<string, AcpToolKind>>
}

function checkOptions(options: AnswerApprovalsOverAcpOptions): void {
  if (typeof options?.requestPermission !== 'function') throw new TypeError('answerApprovalsOverAcp: options.requestPermission must be a function')
  if (typeof options.sessionId !== 'string' || !options.sessionId) throw new TypeError('answerApprovalsOverAcp: options.sessionId must be a non-empty string')
  if (options.workspace !== undefined && typeof options.workspace !== 'string') throw new TypeError('answerApprovalsOverAcp: options.workspace must be a string')
}

function sandboxWorkspace(kernel: Pick<Kernel, 'ctx'>): string {
  const workspace = (kernel.ctx.get('sandbox') as { defaults?: { workspace?: unknown } } | undefined)?.defaults?.workspace
  return typeof workspace === 'string' ? workspace : process.cwd()
}

/** Answer approval asks over ACP; returns the disposer (idempotent). */
export function answerApprovalsOverAcp(kernel: Pick<Kernel, 'ctx'>, options: AnswerApprovalsOverAcpOptions): () => void {
  checkOptions(options)
  const { requestPermission, sessionId, session, kinds } = options
  let disposed = false
  const fork = kernel.ctx.plugin({
    name: 'dsh-acp-approval',
    apply(ctx) {
      ctx.on('approval/request', async (request, next): Promise<ApprovalOutcome> => {
        const outcome = await next()
        if (outcome.kind !== 'unavailable' || disposed || (session && request.session !== session)) return outcome
        if (request.signal.aborted) return outcome
        let params
        try {
          params = permissionRequest(request, { sessionId, workspace: options.workspace ?? sandboxWorkspace(kernel), ...(kinds ? { kinds } : {}) })
        } catch (error) {
          return { kind: 'unavailable', reason: `the permission request could not be built: ${describeError(error)}` }
        }
        try {
          return readPermission(await requestPermission(params, { signal: request.signal }), request.grantable === true)
        } catch (error) {
          return { kind: 'unavailable', reason: `the ACP client could not answer the permission request: ${describeError(error)}` }
        }
      }, true)
    },
  })
  return () => {
    if (disposed) return
    disposed = true
    fork.dispose()
  }
}
