/**
 * dsh's web_fetch as the real clients' web tool (their own are switched off by `dsh setup`):
 * headless Claude Code and `codex exec`, in a fresh HOME and project whose dsh.yml allows
 * 127.0.0.1 only, against the stand-in model. A page of the listed host, served here, reaches the
 * model as Markdown; an unlisted host (`localhost`, the same server) is refused naming the host
 * and the setting that would allow it, and the server sees nothing of it.
 */
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { usePrivateTmpdir } from '../../private-tmpdir.ts'
import type { ClientName, Installed } from './install.ts'
import { clientSpec, codexProvider, model, runClient, Sandbox, toolResults } from './harness.ts'

usePrivateTmpdir('dsh-web-fetch-')

const PAGE = '<!doctype html><html><head><title>T</title><script>alert(1)</script></head><body><h1>Served here</h1><p>A <b>bold</b> word.</p></body></html>'
const DSH_YML = 'sandbox:\n  network:\n    allow: ["127.0.0.1"]\nplugins:\n  workspace-tools:\n  claude-code-permissions:\n    preset: on-request\n'

const hits: string[] = []
let server: http.Server
let port = 0
beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(String(req.url))
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as { port: number }).port
})
afterAll(() => new Promise<void>((resolve) => {
  server.closeAllConnections()
  server.close(() => resolve())
}))

const clients: { name: ClientName; title: string }[] = [{ name: 'claude-code', title: 'Claude Code' }, { name: 'codex', title: 'Codex' }]
const specs = clients.map((c) => ({ ...c, ...clientSpec(c.name, `${c.title} web_fetch`) }))

for (const { name, title, installed, skip } of specs) {
  describe.skipIf(skip)(`web_fetch through ${title} (headless)`, { timeout: 120_000 }, () => {
    it('a listed host\'s page reaches the model as Markdown; an unlisted host is refused with the remedy and never reached', async () => {
      hits.splice(0)
      const box = new Sandbox(installed as Installed)
      box.write('dsh.yml', DSH_YML)
      const m = await model([
        { call: 'web_fetch', input: { url: `http://127.0.0.1:${port}/allowed` } },
        { call: 'web_fetch', input: { url: `http://localhost:${port}/refused` } },
        { text: 'finished' },
      ])
      if (name === 'codex') codexProvider(box, m)
      expect((await box.dsh(['setup', name])).code).toBe(0)
      const run = await runClient(box, name, m, 'read the page')
      expect(run.code, run.stderr).toBe(0)
      const [allowed, refused] = toolResults(m)
      expect(toolResults(m), JSON.stringify(toolResults(m))).toHaveLength(2)
      expect(allowed).toContain(`URL: http://127.0.0.1:${port}/allowed`)
      expect(allowed).toContain('# Served here')
      expect(allowed).toContain('A **bold** word.')
      expect(allowed).not.toContain('alert(1)')
      expect(refused).toMatch(/localhost is not in the network allow list/)
      expect(refused).toMatch(/To allow it: add \\?"localhost\\?" to sandbox\.network\.allow/)
      expect(hits).toContain('/allowed')
      expect(hits).not.toContain('/refused')
    })
  })
}
