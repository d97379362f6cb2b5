// An ACP agent and client from the real SDK, connected by an in-memory stream
// pair (newline-delimited JSON over two TransformStreams, as over stdio). The
// agent runs the test's kernel calls inside its `session/prompt` handler with
// approval asks answered over ACP; the client answers `session/request_permission`
// with the test's function and records every question.
import * as acp from '@agentclientprotocol/sdk'
import { answerApprovalsOverAcp } from '@dsh/acp'
import type { Kernel } from 'dsh'

export type Answer = (params: acp.RequestPermissionRequest, signal: AbortSignal) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>

/**
 * One ACP connection: the client initializes, opens a session and sends one
 * prompt; the agent runs `calls` as that prompt turn. Resolves with what
 * `calls` returned and the questions the client was asked.
 */
export async function overAcp<T>(kernel: Pick<Kernel, 'ctx'>, cwd: string, answer: Answer, calls: (sessionId: string) => Promise<T>): Promise<{ result: T; asked: acp.RequestPermissionRequest[] }> {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>()
  const toClient = new TransformStream<Uint8Array, Uint8Array>()
  const asked: acp.RequestPermissionRequest[] = []
  let result: T | undefined

  const agent = acp.agent({ name: 'dsh-test-agent' })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: 'acp-session-1' }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const dispose = answerApprovalsOverAcp(kernel, {
        sessionId: params.sessionId,
        requestPermission: (request, { signal }) => client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: signal }),
      })
      try {
        result = await calls(params.sessionId)
      } finally {
        dispose()
      }
      return { stopReason: 'end_turn' as const }
    })
  const connection = agent.connect(acp.ndJsonStream(toClient.writable, toAgent.readable))

  const client = acp.client({ name: 'dsh-test-client' })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      asked.push(params)
      return answer(params, signal)
    })
  try {
    await client.connectWith(acp.ndJsonStream(toAgent.writable, toClient.readable), async (cx) => {
      await cx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
      const session = await cx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })
      const response = await cx.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'go' }] })
      if (response.stopReason !== 'end_turn') throw new Error(`prompt stopped: ${response.stopReason}`)
    })
  } finally {
    connection.close()
  }
  return { result: result as T, asked }
}

export const select = (optionId: string): acp.RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId } })
export const cancelled: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } }
