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

/** Event classes written with fsync before `append` resolves. */
export function isDurable(type: string): boolean {
  return type.startsWith('approval/') || type === 'sandbox/mode'
}
