/** Checks shared by the clients' entry shapes: each quotes the key path that is wrong. */

export class EntryProblem extends Error {}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function stringAt(value: unknown, at: string): string {
  if (typeof value !== 'string' || value === '') throw new EntryProblem(`${at} must be a non-empty string, not ${JSON.stringify(value)}`)
  return value
}

export function stringsAt(value: unknown, at: string): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw new EntryProblem(`${at} must be an array of strings, not ${JSON.stringify(value)}`)
  value.forEach((item, i) => {
    if (typeof item !== 'string') throw new EntryProblem(`${at}[${i}] must be a string, not ${JSON.stringify(item)}`)
  })
  return [...(value as string[])]
}

export function stringMapAt(value: unknown, at: string): Record<string, string> | undefined {
  if (value === undefined) return undefined
  if (!isObject(value)) throw new EntryProblem(`${at} must be an object of strings, not ${JSON.stringify(value)}`)
  const out: Record<string, string> = Object.create(null)
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw new EntryProblem(`${at}.${key} must be a string, not ${JSON.stringify(item)}`)
    out[key] = item
  }
  return { ...out }
}
