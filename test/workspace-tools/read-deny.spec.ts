// The sandbox's readDeny/readAllow, enforced by the in-process tools as
// bash's backend enforces it: read, ls, grep, glob and edit refuse a denied
// path, whether named directly, through a symlink, through /proc/self/root
// or walked into; a hard link made before the call to a denied file is not
// read either. Each refusal also checks the secret never reaches the result
// and that nothing changed on disk.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_READ_DENY, LINK_SCAN_LIMIT } from '@dsh/sandbox'
import { KernelOptionsSchema } from 'dsh'
import { outsideDir, setup, teardown, text, tmp } from './helpers.js'
import { sandboxBackend, skipWhen } from '../backends.js'

afterEach(teardown)

/** A workspace with `.env`, `secrets/key`, `secrets/public/readme` and `notes`, and a `token` outside it. */
function withSecrets() {
  const ws = tmp('ws')
  const out = outsideDir()
  fs.writeFileSync(path.join(ws, '.env'), 'SECRET-ENV\n')
  fs.mkdirSync(path.join(ws, 'secrets/public'), { recursive: true })
  fs.writeFileSync(path.join(ws, 'secrets/key'), 'SECRET-KEY\n')
  fs.writeFileSync(path.join(ws, 'secrets/public/readme'), 'public SECRET-FREE\n')
  fs.writeFileSync(path.join(ws, 'notes'), 'notes SECRET-FREE\n')
  fs.writeFileSync(path.join(out, 'token'), 'SECRET-TOKEN\n')
  return { ws, out }
}

describe('readDeny in the file tools', () => {
  const policy = (ws: string, out: string) => ({ readDeny: [path.join(ws, '.env'), path.join(ws, 'secrets'), path.join(out, 'token')], readAllow: [path.join(ws, 'secrets/public')] })

  it('read and ls refuse a denied path named directly, through a symlink or through /proc/self/root; an allowed one inside is read', async () => {
    const { ws, out } = withSecrets()
    fs.symlinkSync(path.join(ws, 'secrets/key'), path.join(ws, 'alias'))
    const { k } = await setup({ sandbox: { workspace: ws, ...policy(ws, out) }, config: { readableRoots: [out] } })
    for (const file_path of ['.env', 'secrets/key', path.join(ws, 'secrets/key'), 'alias', `/proc/self/root${ws}/.env`, path.join(out, 'token')]) {
      const r = await k.call('read', { file_path })
      expect(r.error?.message, file_path).toMatch(/hidden by the sandbox's readDeny/)
      expect(JSON.stringify(r)).not.toContain('SECRET-')
    }
    expect((await k.call('ls', { path: 'secrets' })).error?.message).toMatch(/hidden by the sandbox's readDeny/)
    expect(text(await k.call('read', { file_path: 'secrets/public/readme' }))).toContain('public SECRET-FREE')
    expect(text(await k.call('read', { file_path: 'notes' }))).toContain('notes')
  })

  it('grep and glob skip denied files and directories when they walk, and refuse them when named', async () => {
    const { ws, out } = withSecrets()
    const { k } = await setup({ sandbox: { workspace: ws, ...policy(ws, out) } })
    const g = await k.call('grep', { pattern: 'SECRET', output_mode: 'content' })
    expect(g.error).toBeUndefined()
    expect(text(g)).not.toMatch(/SECRET-(ENV|KEY)/)
    expect(text(g)).toContain('notes SECRET-FREE')
    expect(text(g)).toContain('public SECRET-FREE')
    expect(text(g)).toMatch(/entries the read policy refuses were skipped/)
    const files = await k.call('glob', { pattern: '**/*' })
    expect(text(files)).not.toMatch(/\.env|secrets\/key/)
    expect(text(files)).toContain('secrets/public/readme')
    expect((await k.call('grep', { pattern: 'SECRET', path: '.env', output_mode: 'content' })).error?.message).toMatch(/hidden by the sandbox's readDeny/)
    expect((await k.call('grep', { pattern: 'SECRET', path: 'secrets' })).error?.message).toMatch(/hidden by the sandbox's readDeny/)
    expect((await k.call('glob', { pattern: 'secrets/*' })).error?.message).toMatch(/hidden by the sandbox's readDeny/)
  })

  it('edit and write refuse a denied file, and it stays as it was', async () => {
    const { ws, out } = withSecrets()
    const { k } = await setup({ mode: 'workspace-write', sandbox: { workspace: ws, ...policy(ws, out) } })
    const e = await k.call('edit', { file_path: '.env', old_string: 'SECRET', new_string: 'x' })
    expect(e.error?.message).toMatch(/hidden by the sandbox's readDeny/)
    const w = await k.call('write', { file_path: 'secrets/key', content: 'replaced' })
    expect(w.error?.message).toMatch(/hidden by the sandbox's readDeny/)
    expect(fs.readFileSync(path.join(ws, '.env'), 'utf8')).toBe('SECRET-ENV\n')
    expect(fs.readFileSync(path.join(ws, 'secrets/key'), 'utf8')).toBe('SECRET-KEY\n')
  })

  it('a hard link made before the call to a denied file is not read by read or grep; one to an ordinary file is', async () => {
    const { ws, out } = withSecrets()
    fs.linkSync(path.join(out, 'token'), path.join(ws, 'hard'))
    fs.linkSync(path.join(ws, 'secrets/key'), path.join(ws, 'hard-key'))
    fs.writeFileSync(path.join(out, 'plain'), 'plain text\n')
    fs.linkSync(path.join(out, 'plain'), path.join(ws, 'hard-plain'))
    const { k } = await setup({ sandbox: { workspace: ws, ...policy(ws, out) } })
    for (const file_path of ['hard', 'hard-key']) {
      const r = await k.call('read', { file_path })
      expect(r.error?.message, file_path).toMatch(/is a hard link to a file hidden by the sandbox's readDeny/)
    }
    const g = await k.call('grep', { pattern: 'SECRET-(TOKEN|KEY)', output_mode: 'content' })
    expect(text(g)).not.toMatch(/SECRET-(TOKEN|KEY)/)
    expect(text(await k.call('read', { file_path: 'hard-plain' }))).toContain('plain text')
  })

  it('fails closed: a hard-linked file is refused when the denied paths hold more entries than can be checked', async () => {
    const { ws, out } = withSecrets()
    const many = path.join(out, 'many')
    fs.mkdirSync(many)
    for (let i = 0; i <= LINK_SCAN_LIMIT; i++) fs.writeFileSync(path.join(many, String(i)), '')
    fs.writeFileSync(path.join(out, 'plain'), 'plain text\n')
    fs.linkSync(path.join(out, 'plain'), path.join(ws, 'hard-plain'))
    const { k } = await setup({ sandbox: { workspace: ws, readDeny: [many] } })
    expect((await k.call('read', { file_path: 'hard-plain' })).error?.message).toMatch(/too many \(or unlistable\) to be sure/)
    expect(text(await k.call('read', { file_path: 'notes' }))).toContain('notes') // a file with one link is read as ever
  })

  it('danger-full-access lifts the read policy too, as it lifts the OS sandbox', async () => {
    const { ws, out } = withSecrets()
    const { k } = await setup({ mode: 'danger-full-access', sandbox: { workspace: ws, ...policy(ws, out) } })
    expect(text(await k.call('read', { file_path: '.env' }))).toContain('SECRET-ENV')
  })

  it('the dsh.yml reference names every default readDeny entry', () => {
    const description = String((KernelOptionsSchema.dict!.sandbox as any).dict.readDeny.meta.description)
    for (const entry of DEFAULT_READ_DENY) expect(description).toContain(entry)
  })
})

const backend = await sandboxBackend()
describe.skipIf(skipWhen(!backend, 'bash under sandbox.readDeny', 'no sandbox backend can confine bash here'))('readDeny in bash', () => {
  it('the configured readDeny hides a file from bash, and tool/result says what was hidden', async () => {
    const { ws, out } = withSecrets()
    const token = path.join(out, 'token')
    const { k, resultEvent } = await setup({ sandbox: { workspace: ws, readDeny: [token] } })
    const r = await k.call('bash', { command: `cat ${token}; cat /proc/self/root${token}; echo done` }, { callId: 'rd1' })
    expect(text(r)).toContain('done')
    expect(text(r)).not.toContain('SECRET-TOKEN')
    // the kernel's data directory is hidden too (dataDirReadable is false by default)
    expect(resultEvent('rd1')).toMatchObject({ sandbox: { backend, hidden: [token, path.join(k.dir, '.dsh')] } })
    expect((resultEvent('rd1') as any).sandbox.unenforced).not.toContain('read-deny')
    expect(fs.readFileSync(token, 'utf8')).toBe('SECRET-TOKEN\n')
  })
})
