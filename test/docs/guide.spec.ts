// docs/plugins.md quotes its code from docs/examples/, whose specs compile and
// run it. Every fenced block marked `<!-- example: <file>[#<region>] -->` must
// be byte-identical to that file, or to the region between `// #region <name>`
// and `// #endregion <name>` with its common indentation removed; every ```ts
// block must carry such a mark.
import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const docs = join(import.meta.dirname, '../../docs')
const guide = readFileSync(join(docs, 'plugins.md'), 'utf8')

interface Block { line: number; lang: string; body: string; ref?: string }

/** The fenced blocks of a markdown text, with the example mark on the line before each. */
function blocks(text: string): Block[] {
  const lines = text.split('\n')
  const found: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^([ \t]*)```(\w*)$/.exec(lines[i])
    if (!open) continue
    const indent = open[1]
    const end = lines.findIndex((l, j) => j > i && l === `${indent}\`\`\``)
    if (end < 0) throw new Error(`plugins.md:${i + 1}: unclosed code block`)
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)).join('\n')
    const mark = /^[ \t]*<!-- example: (\S+) -->$/.exec(lines[i - 1] ?? '')
    found.push({ line: i + 1, lang: open[2], body, ref: mark?.[1] })
    i = end
  }
  return found
}

/** A whole example file (without its last newline), or one region of it, dedented. */
function quoted(ref: string): string {
  const [file, name] = ref.split('#')
  const path = join(docs, 'examples', file)
  if (!existsSync(path)) throw new Error(`${ref}: no file docs/examples/${file}`)
  const text = readFileSync(path, 'utf8')
  if (!name) return text.replace(/\n$/, '')
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`)
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`)
  if (start < 0 || end < 0) throw new Error(`${ref}: no region ${name} in docs/examples/${file}`)
  const body = lines.slice(start + 1, end)
  const indent = Math.min(...body.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length))
  return body.map((l) => l.slice(indent)).join('\n')
}

describe('docs/plugins.md', () => {
  const all = blocks(guide)

  it('marks every TypeScript block with the example it quotes', () => {
    const unmarked = all.filter((b) => b.lang === 'ts' && !b.ref).map((b) => `plugins.md:${b.line}`)
    expect(unmarked).toEqual([])
    expect(all.filter((b) => b.ref).length).toBeGreaterThanOrEqual(15)
  })

  it('quotes every marked block exactly', () => {
    for (const block of all.filter((b) => b.ref)) {
      expect(block.body, `plugins.md:${block.line} (${block.ref})`).toBe(quoted(block.ref!))
    }
  })

  it('notices a block that drifted from its example', () => {
    const drifted = guide.replace("export const inject = ['tools']", "export const inject = ['tools', 'sandbox']")
    expect(drifted).not.toBe(guide)
    const block = blocks(drifted).find((b) => b.ref === 'deny-pattern/src/index.ts#plugin')!
    expect(block.body).not.toBe(quoted(block.ref!))
    expect(() => quoted('deny-pattern/src/index.ts#nope')).toThrow(/no region nope/)
    expect(blocks('```ts\nx\n```\n').map((b) => b.ref)).toEqual([undefined])
  })
})
