import * as acp from '@agentclientprotocol/sdk'
import { randomUUID } from 'node:crypto'
import type { Kernel, Session } from 'dsh'
import { answerApprovalsOverAcp } from '@dsh/acp'

/** An ACP agent whose tool calls run on a dsh kernel; the editor answers the approval asks. */
export function dshAgent(kernel: Kernel, runTurn: (session: Session, prompt: acp.PromptRequest) => Promise<void>) {
  const sessions = new Map<string, Session>()
  return acp.agent({ name: 'my-agent' })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(acp.methods.agent.session.new, () => {
      const session = kernel.openSession({ id: `acp-${randomUUID()}` })
      sessions.set(session.id, session)
      return { sessionId: session.id }
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessions.get(params.sessionId)
      if (!session) throw acp.RequestError.resourceNotFound(params.sessionId)
      session.beginTurn() // approval asks need an open turn
      const stop = answerApprovalsOverAcp(kernel, {
        sessionId: params.sessionId,
        session,
        requestPermission: (request, { signal }) =>
          client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: signal }),
      })
      try {
        await runTurn(session, params)
      } finally {
        stop()
        session.endTurn()
      }
      return { stopReason: 'end_turn' as const }
    })
}
