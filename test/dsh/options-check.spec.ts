/**
 * checkOptions checks each given section of the kernel options on its own (an absent section's
 * check only fills its defaults into a result nobody reads); what it refuses, and the words it
 * refuses with, are the whole object check's: the same first error, with the same path.
 */
import { expect, it } from 'vitest'
import { checkOptions, KernelOptionsSchema } from 'dsh'

const refusal = (check: () => unknown) => {
  try {
    check()
  } catch (error) {
    return (error as Error).message
  }
  return 'accepted'
}

it('a bad section is refused with the object check\'s message; two bad sections, with its first; good ones pass', () => {
  const cases: unknown[] = [
    { sandbox: { mode: 'x' } },
    { tools: { code: { timeoutMs: 0 } } },
    { dataDir: 1 },
    { plugins: [] },
    { dataDir: 2, sandbox: 1 },
    { approval: { policy: 1 }, tools: { mode: 'x' } },
    { sandbox: { network: { deny: [] } } },
    { sandbox: { network: { allow: ['example.com'] } }, plugins: { a: 1 } },
    { approval: null, sandbox: undefined },
    {},
  ]
  let refused = 0
  for (const options of cases) {
    const whole = refusal(() => KernelOptionsSchema(options as any))
    const mine = refusal(() => checkOptions(options))
    if (whole === 'accepted') expect(mine).toBe('accepted')
    else {
      refused++
      expect(mine).toBe(`createKernel options: ${whole}`)
    }
  }
  expect(refused).toBe(7)
})

it('a section marked required is checked when absent, as the object check would', () => {
  const meta = (KernelOptionsSchema.dict as Record<string, { meta: { required?: boolean } }>).configFile!.meta
  const was = meta.required
  meta.required = true
  try {
    const whole = refusal(() => KernelOptionsSchema({ plugins: {} } as any))
    expect(whole).toContain('configFile')
    expect(refusal(() => checkOptions({ plugins: {} }))).toBe(`createKernel options: ${whole}`)
  } finally {
    meta.required = was
  }
})
