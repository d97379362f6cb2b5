import { describe, expect, it } from 'vitest'
import { isDurable } from '@dsh/kernel'
import '@dsh/approval'
import '@dsh/sandbox'

describe('each event owner declares which of its events are durable', () => {
  it('approval declares its decisions, the sandbox its mode; the kernel keeps no list of its own', () => {
    for (const type of ['approval/asked', 'approval/decided', 'approval/granted', 'approval/revoked', 'approval/interrupted', 'sandbox/mode']) {
      expect(isDurable(type), type).toBe(true)
    }
    for (const type of ['tool/call', 'tool/result', 'turn/begin', 'approval/unknown', 'sandbox/network']) {
      expect(isDurable(type), type).toBe(false)
    }
  })
})
