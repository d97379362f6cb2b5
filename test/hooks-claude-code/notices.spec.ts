/**
 * The events that only inform: Notification (`permission_prompt`, while an
 * approval waits for a person), SessionStart (`startup` / `resume`) and
 * SessionEnd (the reason). Real hook processes, each run audited with
 * `hook/invoked` and `hook/result`; a failing one is recorded and never
 * changes a decision — whatever it prints, an approval stays the person's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { gone } from '../processes.js'
import type { SessionEvent } from '@dsh/kernel'
import { parseHooks, sessionEndBudgetMs } from '@dsh/hooks-claude-code'
import { approvals, fixture, group, hooksKernel, type HooksKernel } from './helpers.js'

let k: HooksKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

/** A hook writing its stdin to `<workspace>/<name>.json`. */
const recordTo = (name: string) => `cat > "$CLAUDE_PROJECT_DIR/${name}.json"`
const read = (kernel: HooksKernel, name: string) => JSON.parse(readFileSync(join(kernel.dir, `${name}.json`), 'utf8'))

type Data = Record<string, unknown>
const ofEvent = (kernel: HooksKernel, type: string, event: string): Data[] =>
  kernel.events(type).map((e) => e.data as Data).filter((data) => data.event === event)

/** Waits (bounded) until `count` hook/result events of `event` are in the session. */
async function results(kernel: HooksKernel, event: string, count = 1): Promise<Data[]> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const found = ofEvent(kernel, 'hook/result', event)
    if (found.length >= count) return found
    if (Date.now() > deadline) throw new Error(`${count} ${event} hook/result events expected, found ${found.length}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A kernel whose every call asks, with `hooks`, and a person who answers `person`. */
async function asking(hooks: Record<string, unknown>, person: 'approved' | 'denied') {
  k = await hooksKernel({ hooks })
  k.ctx.plugin({ name: 'asks', apply: (ctx) => ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'the policy asks' })) })
  const asked = approvals(k, person)
  return { k, asked }
}

describe('Notification (permission_prompt)', () => {
  it('fires while an approval waits, with Claude Code\'s input fields, audited with the call', async () => {
    const { k, asked } = await asking({ Notification: [group('permission_prompt', recordTo('note'))] }, 'approved')
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect(asked).toHaveLength(1)
    const [result] = await results(k, 'Notification')
    expect(result).toMatchObject({ tool: 'bash', toolName: 'Bash', matched: 'permission_prompt', decision: 'none', exitCode: 0 })
    expect(result!.failure).toBeUndefined()
    const [invoked] = ofEvent(k, 'hook/invoked', 'Notification')
    expect(invoked).toMatchObject({ callId: result!.callId, matcher: 'permission_prompt', matched: 'permission_prompt' })
    const input = read(k, 'note')
    expect(input).toEqual({
      session_id: 'test',
      transcript_path: k.session.path,
      cwd: k.dir,
      permission_mode: 'default',
      hook_event_name: 'Notification',
      message: 'dsh needs your permission to use Bash',
      title: 'Permission needed',
      notification_type: 'permission_prompt',
    })
  })

  it('does not fire when a PermissionRequest hook decided, nor for another notification type\'s matcher', async () => {
    const allow = `printf '%s' '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } })}'`
    const { k, asked } = await asking({
      PermissionRequest: [group('custom', allow)],
      Notification: [group(undefined, recordTo('any')), group('idle_prompt', recordTo('idle'))],
    }, 'denied')
    expect((await k.call('custom', {})).isError).toBe(false)
    expect(asked).toEqual([])
    // the read asks the person: one notification, and only the matcher that takes permission_prompt
    await k.call('read', { file_path: 'x' })
    await results(k, 'Notification')
    expect(ofEvent(k, 'hook/invoked', 'Notification')).toHaveLength(1)
    expect(existsSync(join(k.dir, 'idle.json'))).toBe(false)
    expect(read(k, 'any').notification_type).toBe('permission_prompt')
  })

  it('a failing or deciding hook changes nothing: the person\'s denial stands, every failure is recorded', async () => {
    const approve = (shape: unknown) => `printf '%s' '${JSON.stringify(shape)}'`
    const { k, asked } = await asking({
      Notification: [group(undefined,
        approve({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }),
        approve({ decision: 'approve', hookSpecificOutput: { permissionDecision: 'allow' } }),
        fixture('crash.sh'),
        fixture('malformed.sh'),
        'exit 2',
        '/nonexistent/notify-send',
        { command: fixture('hang.sh'), timeout: 0.3 },
      )],
    }, 'denied')
    const result = await k.call('write', { file_path: 'x', content: 'y' })
    expect(result.error?.message).toContain('a person said no')
    expect(k.ran).toEqual([])
    expect(asked).toHaveLength(1)
    const done = await results(k, 'Notification', 7)
    expect(done.map((data) => data.decision)).toEqual(Array(7).fill('none'))
    const failures = done.map((data) => data.failure).filter(Boolean).sort()
    expect(failures).toEqual(['exit-127', 'malformed-output', 'signal', 'timeout'].sort())
  })

  it('a notification does not hold the approval up: a hung hook runs on after the call is decided', async () => {
    const { k } = await asking({ Notification: [group(undefined, { command: fixture('hang.sh'), timeout: 5 })] }, 'approved')
    const started = Date.now()
    expect((await k.call('custom', {})).isError).toBe(false)
    expect(Date.now() - started).toBeLessThan(4000)
    expect(ofEvent(k, 'hook/invoked', 'Notification')).toHaveLength(1)
    expect(ofEvent(k, 'hook/result', 'Notification')).toHaveLength(0)
  })
})

describe('SessionStart and SessionEnd', () => {
  const hooks = {
    SessionStart: [group('startup', recordTo('start')), group('resume', recordTo('resume'))],
    SessionEnd: [group(undefined, recordTo('end'))],
  }

  it('a new session runs startup hooks, ending it runs SessionEnd before the log closes; reopening runs resume', async () => {
    k = await hooksKernel({ hooks })
    const sessions = k.ctx.sessions
    const s = sessions.open({ id: 'lifecycle' })
    const start = { session_id: 'lifecycle', transcript_path: s.path, cwd: k.dir, permission_mode: 'default', hook_event_name: 'SessionStart', source: 'startup' }
    await sessions.end(s, { reason: 'stdin closed' })
    expect(read(k, 'start')).toEqual(start)
    const { source: _source, ...common } = start
    expect(read(k, 'end')).toEqual({ ...common, hook_event_name: 'SessionEnd', reason: 'other' })
    expect(existsSync(join(k.dir, 'resume.json'))).toBe(false)
    // what reached the file before it closed: both runs, whole
    const onDisk = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    const audited = onDisk.filter((e) => e.type === 'hook/result').map((e) => e.data as Data)
    expect(audited.map((data) => [data.event, data.matched, data.decision])).toEqual([['SessionStart', 'startup', 'none'], ['SessionEnd', 'other', 'none']])
    expect(audited.every((data) => data.callId === undefined)).toBe(true)

    const again = sessions.open({ id: 'lifecycle' })
    await sessions.end(again, { reason: 'clear' })
    expect(read(k, 'resume')).toMatchObject({ session_id: 'lifecycle', source: 'resume' })
    expect(read(k, 'end').reason).toBe('clear')
  })

  it('a hung SessionEnd hook is killed at its timeout and recorded; ending still completes', async () => {
    k = await hooksKernel({ hooks: { SessionEnd: [group(undefined, { command: fixture('hang.sh'), timeout: 0.3 })] } })
    const s = k.ctx.sessions.open({ id: 'hung' })
    await k.ctx.sessions.end(s, { reason: 'other' })
    const onDisk = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(onDisk.filter((e) => e.type === 'hook/result').map((e) => (e.data as Data).failure)).toEqual(['timeout'])
  })

  it('a session closed by its own close() runs SessionEnd once (reason other) before its log closes; ending it again runs nothing more', async () => {
    k = await hooksKernel({ hooks })
    const s = k.ctx.sessions.open({ id: 'closes-itself' })
    s.close()
    // ending a session already ending waits for it, and runs nothing more
    await k.ctx.sessions.end(s, { reason: 'clear' })
    s.close()
    expect(read(k, 'end')).toMatchObject({ session_id: 'closes-itself', hook_event_name: 'SessionEnd', reason: 'other' })
    const onDisk = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(onDisk.filter((e) => e.type === 'hook/result').map((e) => (e.data as Data).event)).toEqual(['SessionStart', 'SessionEnd'])
    await expect(s.append('turn/begin', { turn: 1 })).rejects.toMatchObject({ code: 'SESSION_CLOSED' })
  })

  it('the kernel stopping ends every open session: SessionEnd runs once for each, recorded in its own log', async () => {
    // each run writes a file of its own (runs for different sessions overlap)
    k = await hooksKernel({ hooks: { SessionEnd: [group(undefined, 'cat > "$CLAUDE_PROJECT_DIR/end-$$.json"')] } })
    const a = k.ctx.sessions.open({ id: 'stop-a' })
    const b = k.ctx.sessions.open({ id: 'stop-b' })
    await k.dispose()
    const dir = k.dir
    const ends = readdirSync(dir).filter((n) => /^end-\d+\.json$/.test(n)).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as Data)
    expect(ends.map((e) => e.session_id).sort()).toEqual(['stop-a', 'stop-b', 'test'])
    expect(ends.every((e) => e.reason === 'other')).toBe(true)
    for (const s of [a, b]) {
      const onDisk = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SessionEvent)
      expect(onDisk.filter((e) => e.type === 'hook/result').map((e) => (e.data as Data).event)).toEqual(['SessionEnd'])
    }
  })

  it('a SessionEnd hook at the 600 s default is killed with its process group at the 1.5 s budget; the ending completes and records it', async () => {
    // the hook leaves a sleeper in its group and waits on it
    k = await hooksKernel({ hooks: { SessionEnd: [group(undefined, 'cat > /dev/null; sleep 600 & echo $! > "$CLAUDE_PROJECT_DIR/sleeper.pid"; wait')] } })
    const s = k.ctx.sessions.open({ id: 'budget' })
    const started = Date.now()
    await k.ctx.sessions.end(s, { reason: 'other' })
    const took = Date.now() - started
    // bounded: the budget, the kill grace and the audit — not the hook's 600 s
    expect(took).toBeGreaterThanOrEqual(1_400)
    expect(took).toBeLessThan(10_000)
    const sleeper = Number(readFileSync(join(k.dir, 'sleeper.pid'), 'utf8'))
    expect(await gone(sleeper)).toBe(true)
    const onDisk = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(onDisk.filter((e) => e.type === 'hook/result').map((e) => [(e.data as Data).event, (e.data as Data).failure])).toEqual([['SessionEnd', 'aborted']])
  })

  it('the budget is Claude Code\'s: 1.5 s shared, raised to the longest timeout a matching SessionEnd hook sets, at most 60 s', () => {
    const snapshot = (value: unknown) => ({ hooks: parseHooks(value, 'f', 'claude'), problems: [] })
    const end = (matcher: string | undefined, timeout?: number) => ({ SessionEnd: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: 'true', ...(timeout ? { timeout } : {}) }] }] })
    expect(sessionEndBudgetMs(snapshot(end(undefined)), 'other')).toBe(1_500)
    expect(sessionEndBudgetMs(snapshot(end(undefined, 0.3)), 'other')).toBe(1_500)
    expect(sessionEndBudgetMs(snapshot(end(undefined, 10)), 'other')).toBe(10_000)
    expect(sessionEndBudgetMs(snapshot(end(undefined, 600)), 'other')).toBe(60_000)
    expect(sessionEndBudgetMs(snapshot(end('clear', 10)), 'other')).toBe(1_500)
    expect(sessionEndBudgetMs(snapshot({ SessionStart: [{ hooks: [{ type: 'command', command: 'true', timeout: 30 }] }] }), 'other')).toBe(1_500)
  })

  it('notice hooks may be async; tool-event hooks still may not', () => {
    const handler = { type: 'command', command: 'true', async: true }
    expect(parseHooks({ Notification: [{ hooks: [handler] }], SessionEnd: [{ hooks: [handler] }] }, 'f', 'claude')).toHaveLength(2)
    expect(() => parseHooks({ PreToolUse: [{ hooks: [handler] }] }, 'f', 'claude')).toThrow(/async hooks are not supported/)
  })
})
