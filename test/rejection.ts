/** The KernelError a promise rejects with; fails the test when it resolves or rejects with anything else. */
import { expect } from 'vitest'
import { KernelError } from '@dsh/kernel'

export async function rejection(promise: Promise<unknown>): Promise<KernelError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(KernelError)
    return error as KernelError
  }
  throw new Error('expected a rejection with a KernelError')
}
