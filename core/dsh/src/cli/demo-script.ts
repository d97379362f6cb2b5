/**
 * The demo's embedded defaults: the workspace tools, spill-policy and a real
 * Claude Code hook, plus a small policy plugin that asks before writing the
 * approved file and a demo approver that answers it (and says so).
 */
import type { Context } from 'cordis'
import type { KernelOptions } from '../kernel/options.js'

export interface DemoStep {
  say: string
  name: string
  args: (workspace: string) => unknown
  /** what the step is scripted to end with: success, or this error code */
  expect: 'ok' | string
}

/** A PreToolUse hook as a team would write it for Claude Code: plain sh, JSON on stdin. */
const NO_RM_RF = `if grep -q 'rm -rf'; then echo 'blocked by the team hook: no rm -rf' >&2; exit 2; fi`

export function demoOptions(workspace: string, dataDir: string): KernelOptions {
  return {
    dataDir,
    tools: { mode: 'both' },
    sandbox: { mode: 'read-only', workspace, network: 'off' },
    approval: { policy: 'ask', timeoutMs: 10_000 },
    plugins: {
      'workspace-tools': { workspace },
      'spill-policy': { maxInlineBytes: 2048 },
      'hooks-claude-code': {
        workspace,
        settingsFiles: [],
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: NO_RM_RF, timeout: 10 }] }] },
      },
    },
  }
}

/** Ask before writing `approved.txt`, under an explicit workspace-write mode for that one call. */
export function demoPolicy(ctx: Context) {
  ctx.on('tools/pre-execute', (exec, next) => {
    if (exec.name === 'write' && String((exec.arguments as any).file_path).endsWith('approved.txt')) {
      return { kind: 'ask', reason: 'the demo asks before writing approved.txt', sandboxMode: 'workspace-write' }
    }
    return next()
  })
}

/** The demo's stand-in for a human: approves once, and the timeline says who answered. */
export function demoApprover(ctx: Context, onAsk: (tool: string) => void) {
  ctx.on('approval/request' as any, (request: any) => {
    onAsk(request.exec.name)
    return { kind: 'approved', grant: 'once', sandboxMode: request.sandboxMode }
  })
}

export const steps: DemoStep[] = [
  { say: 'a shell command runs confined (read-only sandbox, no network)', name: 'bash', args: () => ({ command: 'echo "hello from $(uname -s)"; ls -a; touch created-by-bash 2>&1 || echo "write refused inside the sandbox"' }), expect: 'ok' },
  { say: 'a write is refused under read-only, with the way to allow it', name: 'write', args: (ws) => ({ file_path: `${ws}/notes.txt`, content: 'hi' }), expect: 'DENIED' },
  { say: 'an approval (answered by the demo) lets one write run under workspace-write', name: 'write', args: (ws) => ({ file_path: `${ws}/approved.txt`, content: 'written after approval\n' }), expect: 'ok' },
  {
    say: 'code mode: a TypeScript program calls several tools through the full pipeline',
    name: 'run_code',
    args: (ws) => ({
      code: `const file: any = await tools.read({ file_path: ${JSON.stringify(`${ws}/approved.txt`)} })
const listing: any = await tools.ls({ path: ${JSON.stringify(ws)} })
const shell: any = await tools.bash({ command: 'wc -c < approved.txt' })
console.log('three tools called from one program')
return { files: listing.entries.map((e: any) => e.name), bytes: Number(shell.stdout.trim()), read: typeof file }`,
    }),
    expect: 'ok',
  },
  { say: 'a large output is spilled to a file and replaced by a preview', name: 'bash', args: () => ({ command: 'seq 1 3000' }), expect: 'ok' },
  { say: 'a Claude Code hook denies a command', name: 'bash', args: () => ({ command: 'rm -rf ./approved.txt' }), expect: 'DENIED' },
]
