/**
 * The `tools:sdk` prompt section: TypeScript declarations of every visible
 * tool, generated from the JSON Schemas. Tools are sorted by name so the text
 * is byte-identical for an unchanged tool set, whatever the registration order.
 */
import type { ToolSchema } from '../tool-schema.js'
import { docText, propertyKey, toType } from './schema-to-ts.js'

/** the declarations of each (cached, frozen) schemas() view: the prompt section and the transport's description share them */
const generated = new WeakMap<readonly ToolSchema[], string>()

export function generateSdk(schemas: readonly ToolSchema[]): string {
  let text = generated.get(schemas)
  if (text === undefined) {
    text = declarations(schemas)
    if (Object.isFrozen(schemas)) generated.set(schemas, text)
  }
  return text
}

function declarations(schemas: readonly ToolSchema[]): string {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const members = sorted.map((schema) => {
    const doc = schema.description ? `  /** ${docText(schema.description).replace(/\n/g, '\n   * ')} */\n` : ''
    return `${doc}  ${propertyKey(schema.name)}(args: ${toType(schema.parameters, '  ')}): Promise<unknown>`
  })
  return [
    '// run_code programs call these. A call resolves to the tool\'s value (or its text);',
    '// a failed call rejects with an Error whose `code` is the result\'s error code.',
    'declare const tools: {',
    ...members,
    '}',
  ].join('\n')
}

export const SDK_PROMPT = `In code mode, call tools by writing a TypeScript program for the run_code tool. The program is the body of an async function: use \`await tools.<name>(args)\` and \`return\` a JSON value. Only \`tools\` and \`console.log\` are available (no files, network or processes).`
