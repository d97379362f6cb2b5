import { generateText, stepCountIs, type LanguageModel } from 'ai'
import { createKernel } from 'dsh'
import { aiSdkTools } from '@dsh/ai-sdk'

/** One agent run over a workspace: every tool call goes through dsh's pipeline. */
export async function runAgent(model: LanguageModel, prompt: string, workspace: string) {
  const kernel = await createKernel({
    dataDir: `${workspace}/.dsh`,
    sandbox: { workspace, mode: 'read-only' },
    plugins: { 'workspace-tools': {}, 'timeout-policy': { defaultMs: 60000 } },
  })
  const session = kernel.openSession()
  session.beginTurn() // approval asks need an open turn
  try {
    const { text } = await generateText({
      model,
      system: await kernel.ctx.systemPrompt.assemble(),
      tools: aiSdkTools(kernel, { session }),
      stopWhen: stepCountIs(10),
      prompt,
    })
    return { text, log: session.path }
  } finally {
    session.endTurn()
    await kernel.dispose()
  }
}
