/**
 * The typed session events. Packages add their own by declaration merging:
 *
 *   declare module '@dsh/kernel' { interface SessionEvents { 'my/event': { ... } } }
 */
export interface SessionEvents {
  'session/recovered': { droppedBytes: number; reason: string; badLines: number[] }
  'turn/begin': { turn: number }
  'turn/end': { turn: number }
}

export type SessionEventType = keyof SessionEvents & string

export interface SessionEvent<K extends SessionEventType = SessionEventType> {
  seq: number
  time: number
  type: K
  data: SessionEvents[K]
}

const durable = new Set<string>()

/**
 * Declare event types written with fsync before `append` resolves. Called by
 * the module that owns the events, when it is loaded (before it can write one).
 */
export function declareDurable(...types: SessionEventType[]): void {
  for (const type of types) durable.add(type)
}

/** Whether `type` was declared durable by its owner. */
export function isDurable(type: string): boolean {
  return durable.has(type)
}
