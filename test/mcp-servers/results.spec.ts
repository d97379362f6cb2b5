// How an upstream answer becomes a dsh output, and which names dsh takes.
import { describe, expect, it } from 'vitest'
import { serverNameProblem, toolNameProblem } from '@dsh/mcp-servers'
import { toOutput } from '../../plugins/mcp-servers/src/results.js'
import { StderrTail } from '../../plugins/mcp-servers/src/stderr-tail.js'
import { FloodGuard } from '../../plugins/mcp-servers/src/flood-guard.js'

describe('mcp-servers: results', () => {
  it('keeps text, image and resource_link; describes audio; reduces an embedded resource', () => {
    const out = toOutput('s', 't', {
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///y', text: 'inline text' } },
        { type: 'resource', resource: { uri: 'file:///z', blob: 'AAAA', mimeType: 'application/octet-stream' } },
      ],
    }, 1 << 20) as any
    expect(out.content).toEqual([
      { type: 'text', text: 'a' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///x', name: 'x' },
      { type: 'text', text: '[audio audio/wav, 3 bytes, not shown]' },
      { type: 'text', text: 'inline text' },
      { type: 'resource_link', uri: 'file:///z', name: 'file:///z', mimeType: 'application/octet-stream' },
    ])
    expect(out.value).toBeUndefined()
  })

  it('structuredContent becomes value; isError a failure with the server\'s text; over the cap an error', () => {
    expect(toOutput('s', 't', { content: [], structuredContent: { n: 1 } }, 100)).toEqual({ content: [], value: { n: 1 } })
    expect(() => toOutput('s', 't', { content: [{ type: 'text', text: 'nope' }], isError: true }, 100)).toThrow('MCP server s: t failed: nope')
    expect(() => toOutput('s', 't', { content: [{ type: 'text', text: 'x'.repeat(101) }] }, 100)).toThrow(/101 bytes, over mcp-servers maxResultBytes \(100\)/)
  })
})

describe('mcp-servers: names', () => {
  it('server names: letters, digits, _ and -; no __; room for a tool', () => {
    expect(serverNameProblem('github')).toBeUndefined()
    expect(serverNameProblem('my-server_2')).toBeUndefined()
    expect(serverNameProblem('a.b')).toMatch(/only letters/)
    expect(serverNameProblem('a__b')).toMatch(/__/)
    expect(serverNameProblem('x'.repeat(60))).toMatch(/no room/)
  })

  it('tool names that cannot be a dsh tool name are refused, never rewritten', () => {
    expect(toolNameProblem('s', 'create_issue')).toBeUndefined()
    expect(toolNameProblem('s', 'a/b')).toMatch(/characters/)
    expect(toolNameProblem('s', '')).toMatch(/non-empty/)
    expect(toolNameProblem('s', 5)).toMatch(/non-empty string/)
    expect(toolNameProblem('s', 'x'.repeat(60))).toMatch(/longer than the 64/)
  })
})

describe('mcp-servers: bounded state', () => {
  it('the stderr tail keeps the last bytes only', () => {
    const tail = new StderrTail(256)
    for (let i = 0; i < 100; i++) tail.push(Buffer.from(`line ${i}\n`))
    expect(tail.text().endsWith('line 99')).toBe(true)
    expect(Buffer.byteLength(tail.text())).toBeLessThanOrEqual(256)
    tail.push(Buffer.from('y'.repeat(1000)))
    expect(tail.text()).toBe('y'.repeat(256))
  })

  it('the flood guard counts notifications per second, never responses', () => {
    let t = 0
    const guard = new FloodGuard(3, () => t)
    const note = { jsonrpc: '2.0' as const, method: 'notifications/message' }
    expect([1, 2, 3].map(() => guard.over(note))).toEqual([false, false, false])
    expect(guard.over({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false)
    expect(guard.over(note)).toBe(true)
    t = 1000
    expect(guard.over(note)).toBe(false)
  })
})
