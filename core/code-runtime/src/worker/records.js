// @ts-check
/**
 * The text of the records the sub-call channels carry (channel.js): one
 * sub-call going to the host, one answer coming back. Plain comma-separated
 * numbers before the JSON, which is embedded as it came.
 *
 *   call:   `<run>,<call>,<tool index>,<arguments JSON>`
 *   answer: `<run>,<call>,1,<value JSON>`
 *           `<run>,<call>,0,<JSON of [code, message]>`     the tool failed
 *           `<run>,<call>,2,<JSON of message>`             a limit of the runtime
 */

/**
 * @typedef {import('../protocol.js').ResultMessage} ResultMessage
 * @typedef {{ run: number, call: number, tool: number, json: string }} CallRecord
 */

/**
 * @param {number} run
 * @param {number} call
 * @param {number} tool  index in the run's tool list
 * @param {string} json
 */
export function encodeCall(run, call, tool, json) {
  return `${run},${call},${tool},${json}`
}

/**
 * @param {string} text
 * @returns {CallRecord}
 */
export function decodeCall(text) {
  const [run, call, tool, at] = numbers(text)
  return { run, call, tool, json: text.slice(at) }
}

/** @param {ResultMessage} message */
export function encodeResult(message) {
  const { run, call } = message
  if (message.ok) return `${run},${call},1,${message.json}`
  if (message.limit) return `${run},${call},2,${JSON.stringify(message.message)}`
  return `${run},${call},0,${JSON.stringify([message.code, message.message])}`
}

/**
 * @param {string} text
 * @returns {ResultMessage}
 */
export function decodeResult(text) {
  const [run, call, kind, at] = numbers(text)
  const rest = text.slice(at)
  if (kind === 1) return { t: 'result', run, call, ok: true, json: rest }
  if (kind === 2) return { t: 'result', run, call, ok: false, code: 'LIMIT', message: String(JSON.parse(rest)), limit: true }
  const [code, message] = /** @type {[unknown, unknown]} */ (JSON.parse(rest))
  return { t: 'result', run, call, ok: false, code: String(code), message: String(message) }
}

/**
 * The three numbers a record starts with, and where its JSON starts.
 * @param {string} text
 * @returns {[number, number, number, number]}
 */
function numbers(text) {
  const first = text.indexOf(',')
  const second = text.indexOf(',', first + 1)
  const third = text.indexOf(',', second + 1)
  if (first < 0 || second < 0 || third < 0) throw new Error(`a sub-call record is malformed: ${text.slice(0, 40)}`)
  return [Number(text.slice(0, first)), Number(text.slice(first + 1, second)), Number(text.slice(second + 1, third)), third + 1]
}
