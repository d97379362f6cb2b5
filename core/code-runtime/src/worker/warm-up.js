// @ts-check
/**
 * JIT warm-up. A cold worker spends ~0.6 ms in sucrase on a two-line program
 * (~0.05 ms after a few thousand transforms), and ~200 µs of its own time on
 * each sub-call of a program (~25 µs once V8 has optimized the QuickJS glue
 * and tiered the wasm up). So the worker exercises the whole run path once
 * before it says `ready`, then, while idle, transpiles a small corpus of
 * typical programs and runs a program of sub-calls answered in the worker
 * itself (`LocalLink`), in short steps: a run that arrives waits one step at
 * most, a few milliseconds. Warm-up runs use a run id the host never hands out.
 */
import { LocalLink } from './link.js'
import { Session } from './session.js'
import { compileProgram } from './transpile.js'

/** @typedef {import('./engine.js').Engine} Engine */

const corpus = [
  [
    'interface Entry { path: string; size?: number }',
    'type Listing = { entries: Entry[] }',
    'enum Kind { File, Dir }',
    'const list = { entries: [{ path: "a", size: 1 }] } as Listing',
    'const big: Entry[] = list.entries.filter((e: Entry) => (e.size ?? 0) > 0)',
    'console.log(big.length, Kind.File)',
    'return big.map(e => e.path)',
  ].join('\n'),
  [
    'const files = await tools.glob({ pattern: "src/**/*.ts" }) as string[]',
    'const hits: { file: string; line: number }[] = []',
    'for (const file of files) {',
    '  const text = String(await tools.read({ path: file }))',
    '  text.split("\\n").forEach((l, i) => { if (/TODO/.test(l)) hits.push({ file, line: i + 1 }) })',
    '}',
    'return { count: hits.length, hits: hits.slice(0, 20) }',
  ].join('\n'),
  [
    'class Counter<K> { private counts = new Map<K, number>()',
    '  add(key: K, by = 1): this { this.counts.set(key, (this.counts.get(key) ?? 0) + by); return this }',
    '  top(n: number): [K, number][] { return [...this.counts].sort((a, b) => b[1] - a[1]).slice(0, n) } }',
    'const [a, b] = await Promise.all([tools.a({}), tools.b({ x: `${1 + 1}` })])',
    'const c = new Counter<string>().add("x").add(String(a?.y ?? b))',
    'return c.top(3)',
  ].join('\n'),
]

/** the program of a warm-up session: sequential and parallel sub-calls, a log line, a return value */
const subCallProgram = [
  'const seen: number[] = []',
  'for (let i = 0; i < 24; i++) seen.push((await tools.echo({ i })).i)',
  'const [a, b] = await Promise.all([tools.echo({ s: "x" }), tools.echo({ s: "y" })])',
  'console.log(seen.length, a.s)',
  'return { n: seen.length, s: a.s + b.s }',
].join('\n')
const limits = { timeoutMs: 5000, memoryBytes: 16 << 20, maxSubCalls: 64, maxParallelSubCalls: 2, maxValueBytes: 4096, maxLogBytes: 1024 }

/**
 * Transpile `transforms` programs of the corpus, and run a program of
 * sub-calls through a session (in a fresh isolate, like any run) when
 * `session` is set.
 * @param {Engine} engine
 * @param {{ transforms: number, session: boolean }} step
 */
export function warmUp(engine, { transforms, session }) {
  for (let i = 0; i < transforms; i++) compileProgram(`${corpus[i % corpus.length]}\n// ${i}`)
  if (!session) return
  const request = { t: /** @type {const} */ ('run'), run: -1, code: subCallProgram, tools: ['echo'], limits, deadline: Date.now() + 5000 }
  const run = new Session(engine, request, new LocalLink())
  run.run()
  run.release()
  engine.prepare()
}
