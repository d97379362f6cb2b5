import { afterEach, describe, expect, it } from 'vitest'
import { KernelError, Session } from '@dsh/kernel'
import { applyPreset, getPreset, presetList, resolveApprovalConfig } from '@dsh/approval'
import { createKernel } from 'dsh'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { onDisk, setup, type Setup } from './helpers.js'

let s: Setup | undefined
let k: TestKernel | undefined
afterEach(async () => {
  await s?.cleanup(); s = undefined
  await k?.cleanup(); k = undefined
})

describe('presets', () => {
  it('bundle policy and sandbox mode after Codex\'s read-only / auto / full-access', () => {
    expect(presetList().map((p) => [p.name, p.policy, p.sandboxMode])).toEqual([
      ['read-only', 'ask', 'read-only'],
      ['auto', 'ask', 'workspace-write'],
      ['workspace-write', 'ask', 'workspace-write'],
      ['full-access', 'never', 'danger-full-access'],
    ])
  })

  it('an unknown name is INVALID_CONFIG naming the key and the known presets; prototype names are not presets', () => {
    for (const name of ['yolo', '__proto__', 'constructor', 'toString', '', 42]) {
      let error: unknown
      try { getPreset(name) } catch (e) { error = e }
      expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
      expect((error as Error).message).toMatch(/approval\.preset: unknown preset .*known presets: read-only, auto, workspace-write, full-access/)
    }
  })

  it('fill the knobs not set explicitly; explicit keys win', () => {
    expect(applyPreset({ approval: { preset: 'full-access' } })).toEqual({ approval: { preset: 'full-access', policy: 'never' }, sandbox: { mode: 'danger-full-access' } })
    expect(applyPreset({ approval: { preset: 'full-access', policy: 'ask' as const } })).toMatchObject({ approval: { policy: 'ask' }, sandbox: { mode: 'danger-full-access' } })
    expect(applyPreset({ approval: { preset: 'auto' }, sandbox: { mode: 'read-only' as const, network: 'off' } })).toEqual({
      approval: { preset: 'auto', policy: 'ask' }, sandbox: { mode: 'read-only', network: 'off' },
    })
    const none = { approval: { policy: 'never' as const } }
    expect(applyPreset(none)).toBe(none)
  })
})

describe('config', () => {
  it('defaults to ask and 600000 ms; a preset supplies the policy unless policy is set', () => {
    expect(resolveApprovalConfig()).toEqual({ policy: 'ask', timeoutMs: 600_000 })
    expect(resolveApprovalConfig({ preset: 'full-access' })).toEqual({ policy: 'never', timeoutMs: 600_000, preset: 'full-access' })
    expect(resolveApprovalConfig({ preset: 'full-access', policy: 'ask', timeoutMs: 5 })).toEqual({ policy: 'ask', timeoutMs: 5, preset: 'full-access' })
  })

  const bad: Array<[unknown, RegExp]> = [
    [{ policy: 'sometimes' }, /approval\.policy must be "ask" or "never", got "sometimes"/],
    [{ timeoutMs: 0 }, /approval\.timeoutMs .* got 0/],
    [{ timeoutMs: 1.5 }, /approval\.timeoutMs/],
    [{ timeoutMs: 2 ** 31 }, /approval\.timeoutMs .* 2147483647/],
    [{ timeoutMs: '10' }, /approval\.timeoutMs/],
    [{ preset: 'nope' }, /unknown preset "nope"/],
    [{ polcy: 'ask' }, /unknown key approval\.polcy/],
    [[], /must be an object/],
  ]
  for (const [config, message] of bad) {
    it(`rejects ${JSON.stringify(config)}`, () => {
      expect(() => resolveApprovalConfig(config)).toThrow(message)
    })
  }

  it('createKernel refuses a bad preset or timeout before starting anything', async () => {
    await expect(createKernel({ approval: { preset: 'yolo' } })).rejects.toThrow(/unknown preset "yolo"/)
    await expect(createKernel({ approval: { timeoutMs: 2 ** 40 } })).rejects.toThrow(/approval\.timeoutMs/)
  })

  it('createKernel resolves the preset at start: full-access denies asks and sets the default sandbox mode', async () => {
    k = await createTestKernel({ approval: { preset: 'full-access' } })
    expect(k.options.sandbox?.mode).toBe('danger-full-access')
    expect(k.options.approval?.policy).toBe('never')
    expect(k.ctx.approval.settings).toEqual({ policy: 'never', timeoutMs: 600_000, preset: 'full-access' })
    expect(k.ctx.approval.policyFor(k.session)).toBe('never')
  })

  it('createKernel: an explicit policy or sandbox mode wins over the preset', async () => {
    k = await createTestKernel({ approval: { preset: 'full-access', policy: 'ask' }, sandbox: { mode: 'read-only' } })
    expect(k.options.sandbox?.mode).toBe('read-only')
    expect(k.ctx.approval.settings.policy).toBe('ask')
  })
})

describe('switching a session\'s preset', () => {
  it('records a durable sandbox/mode event with mode, preset, policy and reason', async () => {
    s = await setup()
    const event = await s.approval.setPreset(s.session, 'auto', 'user pressed shift+tab')
    expect(event.data).toEqual({ mode: 'workspace-write', preset: 'auto', policy: 'ask', reason: 'user pressed shift+tab' })
    const onFile = onDisk(s.session.path).filter((e) => e.type === 'sandbox/mode')
    expect(onFile.map((e) => e.data)).toEqual([event.data])
  })

  it('changes the session\'s policy both ways, leaving other sessions on the config policy', async () => {
    s = await setup()
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' })) })
    const other = new Session(s.dir, { id: 'other' })
    other.beginTurn()
    await s.approval.setPreset(s.session, 'full-access')
    expect(s.approval.policyFor(s.session)).toBe('never')
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('denied')
    expect(s.approval.policyFor(other)).toBe('ask')
    expect((await s.approval.request({ exec: { ...s.exec('t'), session: other } })).kind).toBe('approved')
    await s.approval.setPreset(s.session, 'read-only')
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('approved')
    other.close()
  })

  it('a sandbox/mode event without a policy (a mode-only switch) leaves the policy alone', async () => {
    s = await setup()
    await s.approval.setPreset(s.session, 'full-access')
    await s.session.append('sandbox/mode', { mode: 'read-only', reason: 'mode only' })
    expect(s.approval.policyFor(s.session)).toBe('never')
  })

  it('without a sandbox service to record the mode, a preset switch is refused and nothing is written', async () => {
    s = await setup({}, { sandbox: false })
    let error: unknown
    try { await s.approval.setPreset(s.session, 'full-access') } catch (e) { error = e }
    expect(KernelError.is(error, 'SANDBOX_UNAVAILABLE')).toBe(true)
    expect((error as Error).message).toMatch(/setPreset "full-access": no sandbox service/)
    expect(onDisk(s.session.path).some((e) => e.type === 'sandbox/mode')).toBe(false)
    expect(s.approval.policyFor(s.session)).toBe('ask')
  })

  it('refuses an unknown preset without writing anything', async () => {
    s = await setup()
    await expect(s.approval.setPreset(s.session, 'root')).rejects.toThrow(/setPreset name: unknown preset "root"/)
    expect(onDisk(s.session.path).some((e) => e.type === 'sandbox/mode')).toBe(false)
  })
})
