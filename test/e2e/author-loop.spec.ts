/**
 * The plugin author's whole loop, as docs/plugins.md tells it, from a directory outside the
 * repository: `dsh new-plugin`, `npm install` (dsh linked from this checkout, nothing of dsh's asked
 * of the registry), `npm test`, the plugin served by `dsh mcp --watch` to the official MCP SDK
 * client; then its source edited and rebuilt, broken, fixed and finally removed from dsh.yml — with
 * what the person sees at each step: the commands' output, the server's stderr, the client's
 * notifications and the tool results.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js'
import type { Readable } from 'node:stream'
import { assertBuilt, errorCode, Output, text } from './mcp-helpers.js'
import { cleanEnv, outsideDir, REPO } from './outside.js'

const work = outsideDir('dsh-author-')
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

const plugin = path.join(work, 'dsh-plugin-greet')
const source = path.join(plugin, 'src/index.ts')
const built = path.join(plugin, 'lib/src/index.js')

function run(command: string, args: string[], cwd = plugin) {
  return spawnSync(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 300_000 })
}

/** Replace `from` (which must be there, once) by `to` in the plugin's source. */
function edit(from: string, to: string): void {
  const before = fs.readFileSync(source, 'utf8')
  expect(before.split(from).length, `the source holds ${JSON.stringify(from)} once`).toBe(2)
  fs.writeFileSync(source, before.replace(from, to))
}

/** What the client was sent, each kind in order, with a way to wait for the next of a kind. */
class Heard {
  readonly listChanged: number[] = []
  readonly logs: LoggingMessageNotification['params'][] = []
  private waiters: Array<() => void> = []

  constructor(client: Client) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.push(() => this.listChanged.push(Date.now())))
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => this.push(() => this.logs.push(n.params)))
  }

  private push(record: () => void): void {
    record()
    for (const wake of this.waiters.splice(0)) wake()
  }

  /** Resolves once `ready()` holds (checked now and after every notification); rejects after `ms`. */
  async until(ready: () => boolean, what: string, ms = 60_000): Promise<void> {
    const deadline = Date.now() + ms
    while (!ready()) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`the client was never sent ${what}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }
}

it('new-plugin → npm install → npm test → dsh mcp --watch → edit → break → fix → remove: each step says what happened', async () => {
  assertBuilt()
  const cli = path.join(REPO, 'core/dsh/bin/dsh.cjs')

  // 1. the scaffold, written by the checkout's dsh
  const made = run(process.execPath, [cli, 'new-plugin', 'dsh-plugin-greet'], work)
  expect(made.stderr).toBe('')
  expect(made.status).toBe(0)
  expect(made.stdout).toBe(`wrote dsh-plugin-greet (plugin greet, tool greet_hello) in ${plugin}: package.json, tsconfig.json, .gitignore, src/index.ts, test/plugin.test.ts, dsh.yml, README.md\nnext: cd ${plugin} && npm install && npm test\n`)

  // 2. installed as the guide says: dsh and cordis linked, the registry (or npm's cache) asked for the rest only
  const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'])
  expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0)
  expect(fs.realpathSync(path.join(plugin, 'node_modules/dsh'))).toBe(path.join(REPO, 'core/dsh'))
  const lock = JSON.parse(fs.readFileSync(path.join(plugin, 'package-lock.json'), 'utf8')) as { packages: Record<string, { link?: boolean; resolved?: string }> }
  expect(lock.packages['node_modules/dsh']).toMatchObject({ link: true })
  expect(lock.packages['node_modules/cordis']).toMatchObject({ link: true })
  expect(Object.keys(lock.packages).filter((name) => /node_modules\/(@dsh\/|dsh$)/.test(name) && !lock.packages[name].link), 'nothing of dsh\'s fetched').toEqual([])

  // 3. its own test
  const test = run('npm', ['test'])
  expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0)
  expect(test.stdout).toMatch(/# tests 4\n# suites 0\n# pass 4\n# fail 0\n/)

  // 4. served by `npx dsh mcp --watch` from the plugin's directory (its dsh.yml loads the build)
  const bin = path.join(plugin, 'node_modules/.bin/dsh')
  expect(fs.realpathSync(bin)).toBe(cli)
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--watch'], cwd: plugin, env: cleanEnv(), stderr: 'pipe' })
  const stderr = new Output(transport.stderr as Readable)
  const client = new Client({ name: 'author-loop', version: '1.0.0' })
  const heard = new Heard(client)
  await client.connect(transport)
  let seen = 0
  try {
    const tool = async () => (await client.listTools()).tools.map(({ name, description }) => ({ name, description }))
    const greet = async () => text(await client.callTool({ name: 'greet_hello', arguments: { name: 'world' } }))
    // what it says at start: the config, the session log, and that this client cannot answer approvals
    await stderr.waitFor(/cannot answer approval requests.*\n/, 'the approval notice')
    const started = stderr.text.split('\n')
    expect(started[0]).toBe(`dsh mcp: config ${path.join(plugin, 'dsh.yml')}`)
    expect(started[1]).toMatch(new RegExp(`^dsh mcp: session (mcp-[0-9a-f-]+) \\(${plugin}/\\.dsh/sessions/\\1\\.jsonl\\)$`))
    expect(started[2]).toMatch(/^dsh mcp: this MCP client cannot answer approval requests \(it did not declare form elicitation\)/)
    expect(started.slice(3)).toEqual([''])
    seen = stderr.text.length
    /** what the server said on stderr since the last look */
    const said = () => stderr.text.slice(seen, (seen = stderr.text.length))
    expect(await tool()).toEqual([{ name: 'greet_hello', description: 'Greet someone by name.' }])
    expect(await greet()).toBe('Hello, world!')

    // 5. a new description and behaviour, rebuilt: the client is told, and the new code answers
    edit("description: 'Greet someone by name.'", "description: 'Greet someone by name, in capitals.'")
    edit('execute: (args) => `${config.greeting}, ${String(args.name)}!`', 'execute: (args) => `${config.greeting}, ${String(args.name)}!`.toUpperCase()')
    const rebuilt = run('npm', ['run', 'build'])
    expect(rebuilt.status, rebuilt.stdout).toBe(0)
    await heard.until(() => heard.listChanged.length === 1, 'tools/list_changed')
    await stderr.waitFor(/reloaded/, 'the reload')
    expect(said()).toBe('dsh mcp: reloaded dsh.yml (added 0, removed 0, changed 1)\n')
    expect(await tool()).toEqual([{ name: 'greet_hello', description: 'Greet someone by name, in capitals.' }])
    expect(await greet()).toBe('HELLO, WORLD!')

    // 6. broken: tsc says where in the source, still writes the JavaScript, and the reload of that fails
    edit("description: 'Greet someone by name, in capitals.'", "description: 'Greet someone by name, in capitals, loudly.'")
    edit('export function apply(ctx: Context, config: Config) {\n', 'export function apply(ctx: Context, config: Config) {\n  const suffix = ;\n')
    edit('${String(args.name)}!`.toUpperCase()', '${String(args.name)}${suffix}`.toUpperCase()')
    const broken = run('npm', ['run', 'build'])
    expect(broken.status).not.toBe(0)
    const tsLine = fs.readFileSync(source, 'utf8').split('\n').indexOf('  const suffix = ;') + 1
    expect(broken.stdout).toContain(`src/index.ts(${tsLine},18): error TS1109: Expression expected.`)
    const jsLines = fs.readFileSync(built, 'utf8').split('\n')
    const jsLine = jsLines.findIndex((line) => line.includes('const suffix = ;'))
    expect(jsLine, 'tsc wrote the statement as it is').toBeGreaterThan(-1)
    const column = jsLines[jsLine].indexOf(';') + 1
    // the plugin, the built file's line and column, the line itself and a caret under the column
    const where = `plugin ./lib/src/index.js cannot be loaded: ${built}:${jsLine + 1}:${column}: Unexpected token ';'\n  ${jsLines[jsLine]}\n  ${' '.repeat(column - 1)}^`
    await heard.until(() => heard.logs.some((log) => (log.data as { type?: string }).type === 'mcp/reload-failed'), 'the reload failure')
    const failed = heard.logs.find((log) => (log.data as { type?: string }).type === 'mcp/reload-failed')!
    // this client set no log level: the failure is sent to it anyway, at level error
    expect(failed).toEqual({ level: 'error', logger: 'dsh', data: { type: 'mcp/reload-failed', message: where } })
    await stderr.waitFor(/reload of dsh\.yml failed(.|\n)*\^\n/, 'the reload failure')
    expect(said()).toBe(`dsh mcp: reload of dsh.yml failed; the previous plugin set stays: ${where}\n`)
    // the version before the break still serves, as it was listed
    expect(await tool()).toEqual([{ name: 'greet_hello', description: 'Greet someone by name, in capitals.' }])
    expect(await greet()).toBe('HELLO, WORLD!')

    // 7. fixed: the new version serves; the failure in between announced no change of the list
    edit('  const suffix = ;\n', "  const suffix = '!!'\n")
    const fixed = run('npm', ['run', 'build'])
    expect(fixed.status, fixed.stdout).toBe(0)
    await stderr.waitFor(/failed(.|\n)*reloaded/, 'the second reload')
    await heard.until(() => heard.listChanged.length >= 2, 'the second tools/list_changed')
    expect(await tool()).toEqual([{ name: 'greet_hello', description: 'Greet someone by name, in capitals, loudly.' }])
    expect(heard.listChanged).toHaveLength(2)
    expect(said()).toBe('dsh mcp: reloaded dsh.yml (added 0, removed 0, changed 1)\n')
    expect(await greet()).toBe('HELLO, WORLD!!')

    // 8. removed from dsh.yml: its tool is gone
    const config = path.join(plugin, 'dsh.yml')
    const yml = fs.readFileSync(config, 'utf8')
    expect(yml).toContain('plugins:\n  ./lib/src/index.js:\n    greeting: Hello\n')
    fs.writeFileSync(config, yml.replace('plugins:\n  ./lib/src/index.js:\n    greeting: Hello\n', 'plugins: {}\n'))
    await heard.until(() => heard.listChanged.length === 3, 'the third tools/list_changed')
    await stderr.waitFor(/removed 1/, 'the reload removing the plugin')
    expect(said()).toBe('dsh mcp: reloaded dsh.yml (added 0, removed 1, changed 0)\n')
    expect(await tool()).toEqual([])
    const gone = await client.callTool({ name: 'greet_hello', arguments: { name: 'world' } })
    expect(gone.isError).toBe(true)
    expect(errorCode(gone)).toBe('UNKNOWN_TOOL')
    expect(text(gone)).toContain('unknown tool "greet_hello"')
  } finally {
    await client.close()
  }
  await stderr.waitFor(/shutting down.*\n/, 'the shutdown')
  expect(stderr.text.slice(seen)).toMatch(/^dsh mcp: shutting down \([^)]+\)\n$/)
}, 600_000)
