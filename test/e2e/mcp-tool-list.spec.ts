/**
 * `dsh mcp` end to end, what a client is told about the tools: the
 * `instructions` at initialize (the assembled system prompt), titles,
 * annotations and output schemas in `tools/list`, the SDK declarations in
 * `run_code`'s description, and `structuredContent` checked against the
 * output schema.
 */
import { describe, expect, it } from 'vitest'
import { errorCode, fixture, mcpServers, text } from './mcp-helpers.js'

const start = mcpServers()

const bundled = { plugins: { 'workspace-tools': {}, 'tool-cordis': {}, [fixture('typed-tools.mjs')]: {} } }

describe('dsh mcp: instructions', () => {
  it('under native mode they hold each tool\'s guidance and no SDK', async () => {
    const { client } = await start({ plugins: { [fixture('echo-tool.mjs')]: { name: 'echo' }, 'workspace-tools': {} } })
    const instructions = client.getInstructions() ?? ''
    expect(instructions).toContain('echo echoes')
    expect(instructions).toContain('about echo')
    expect(instructions).toContain('read: open files with read rather than cat')
    expect(instructions).not.toContain('declare const tools')
  })

  it('under code mode they hold the SDK declarations and not the dropped tool:* guidance', async () => {
    const { client } = await start({ tools: { mode: 'code' }, plugins: { [fixture('echo-tool.mjs')]: { name: 'echo' }, [fixture('typed-tools.mjs')]: {} } })
    const instructions = client.getInstructions() ?? ''
    expect(instructions).toContain('declare const tools: {')
    expect(instructions).toMatch(/ {2}echo\(args: /)
    expect(instructions).toMatch(/ {2}measure\(args: \{\n? *word: string/)
    expect(instructions).not.toContain('echo echoes')
    // plugin sections other than tool guidance stay
    expect(instructions).toContain('about echo')
  })
})

describe('dsh mcp: tools/list', () => {
  it('sends title at the top level, annotations and outputSchema as the tools declare them', async () => {
    const { client } = await start(bundled)
    const { tools } = await client.listTools()
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    expect(byName.measure).toEqual({
      name: 'measure',
      title: 'Measure a word',
      description: 'the length of a word',
      inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
      outputSchema: { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'], additionalProperties: false },
    })
    // a tool that declares none gets none
    expect(Object.keys(byName.plain).sort()).toEqual(['description', 'inputSchema', 'name'])
    for (const name of ['read', 'ls', 'grep', 'glob', 'cordis_inspect']) expect(byName[name].annotations, name).toMatchObject({ readOnlyHint: true, openWorldHint: false })
    for (const name of ['write', 'edit']) expect(byName[name].annotations, name).toMatchObject({ readOnlyHint: false, openWorldHint: false })
    // the network is off by default: a command cannot reach the outside world
    expect(byName.bash.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false })
    // web_fetch reads the outside world (under the same network policy) and changes nothing here
    expect(byName.web_fetch.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true })
    expect(byName.read.title).toBe('Read file')
    expect(byName.read.outputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['file_path', 'content']) })
  })

  it('under code mode run_code\'s description carries the SDK declarations, identical from one listing to the next', async () => {
    const { client } = await start({ tools: { mode: 'code' }, ...bundled })
    const first = (await client.listTools()).tools
    const runCode = first.find((t) => t.name === 'run_code')!
    expect(runCode.description).toContain('declare const tools: {')
    for (const name of ['read', 'bash', 'measure', 'plain']) expect(runCode.description).toMatch(new RegExp(`\\n  ${name}\\(args: `))
    // its programs can call bash and write: not read-only, destructive
    expect(runCode.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    const again = (await client.listTools()).tools.find((t) => t.name === 'run_code')!
    expect(again.description).toBe(runCode.description)
    // the same declarations the instructions hold
    const sdk = runCode.description!.slice(runCode.description!.indexOf('```ts'))
    expect(client.getInstructions()).toContain(sdk)
  })

  it('with the network on, bash is open-world', async () => {
    const { client } = await start({ sandbox: { network: 'on' }, plugins: { 'workspace-tools': {} } })
    const bash = (await client.listTools()).tools.find((t) => t.name === 'bash')!
    expect(bash.annotations?.openWorldHint).toBe(true)
  })
})

describe('dsh mcp: structured results', () => {
  it('a value matching the outputSchema arrives as structuredContent, and the SDK client accepts it', async () => {
    const { client } = await start(bundled)
    // the SDK client checks structuredContent against the listed outputSchema itself
    await client.listTools()
    const result = await client.callTool({ name: 'measure', arguments: { word: 'four' } })
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toEqual({ length: 4 })
    expect(text(result)).toBe('{"length":4}')
    const plain = await client.callTool({ name: 'plain', arguments: {} })
    expect(plain.structuredContent).toEqual({ ok: true, list: [1, 2] })
    const read = await client.callTool({ name: 'read', arguments: { file_path: 'dsh.yml' } })
    expect(read.structuredContent).toMatchObject({ startLine: 1, content: expect.stringContaining('plugins') })
  })

  it('a value that breaks its outputSchema is a tool error result, not a malformed response', async () => {
    const { ws, client } = await start({ plugins: { [fixture('typed-tools.mjs')]: { broken: true } } })
    await client.listTools()
    const result = await client.callTool({ name: 'measure', arguments: { word: 'four' } })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(errorCode(result)).toBe('TOOL_FAILED')
    expect(text(result)).toMatch(/measure broke its outputSchema: value\.length must be integer/)
    const logged = await ws.waitForEvent((e) => e.type === 'tool/result' && e.data.name === 'measure', 'the result in the log')
    expect(logged.data.error.code).toBe('TOOL_FAILED')
  })
})
