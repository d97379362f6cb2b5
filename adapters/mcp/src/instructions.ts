/**
 * `initialize`'s `instructions`: the system prompt as the kernel assembles it
 * when the client connects (under code mode the `tools:sdk` declarations,
 * under native each tool's guidance). MCP sends them once: a later reload
 * changes the tool list (and `run_code`'s description, which carries the
 * declarations too) but not what the client was told at initialize.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { InitializeRequestSchema, type InitializeRequest, type InitializeResult } from '@modelcontextprotocol/sdk/types.js'

/** the SDK's own answer to `initialize` (it records the client's capabilities); SDK 1.32 keeps it on the instance */
type SdkInitialize = (request: InitializeRequest) => Promise<InitializeResult>

export function answerWithInstructions(server: Server, instructions: () => Promise<string>, onError: (error: unknown) => void): void {
  const sdk = (server as unknown as { _oninitialize: SdkInitialize })._oninitialize.bind(server)
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const result = await sdk(request)
    let text = ''
    try {
      text = await instructions()
    } catch (error) {
      // a prompt section that throws costs the client its instructions, not the connection
      onError(error)
    }
    return text ? { ...result, instructions: text } : result
  })
}
