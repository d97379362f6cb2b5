/**
 * Every documented rule form and mode, each with a twin that must not match.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { loadShellParser } from '@dsh/claude-code-permissions'
import { decider, HOME, WORKSPACE } from './helpers.js'

beforeAll(() => loadShellParser())

describe('Bash specifiers', () => {
  it('a rule for dsh\'s bash by its MCP name (or the whole dsh server) matches every command; a bare Bash or Bash(*) is about the client\'s own Bash', () => {
    for (const rule of ['mcp__dsh__bash', 'mcp__dsh', 'mcp__dsh__*']) {
      const d = decider({ allow: [rule] })
      expect(d.bash('anything at all').decision).toBe('allow')
      expect(d.bash('anything at all').rule?.text).toBe(rule)
    }
    for (const rule of ['Bash', 'Bash(*)']) {
      expect(decider({ deny: [rule] }).bash('anything at all').decision).toBe('ask')
      expect(decider({ allow: [rule] }).bash('anything at all').rule).toBeUndefined()
    }
  })

  it('an exact specifier matches that command only', () => {
    const d = decider({ allow: ['Bash(npm run build)'] })
    expect(d.bash('npm run build').decision).toBe('allow')
    expect(d.bash('npm run build:dev').decision).toBe('ask')
    expect(d.bash('npm run build --prod').decision).toBe('ask')
  })

  it('legacy prefix:* keeps its word boundary: npm:* is not npmx', () => {
    const d = decider({ allow: ['Bash(npm:*)'] })
    expect(d.bash('npm').decision).toBe('allow')
    expect(d.bash('npm install left-pad').decision).toBe('allow')
    expect(d.bash('npmx install').decision).toBe('ask')
    const test = decider({ allow: ['Bash(npm run test:*)'] })
    expect(test.bash('npm run test -- --watch').decision).toBe('allow')
    expect(test.bash('npm run testing').decision).toBe('ask')
  })

  it('* matches anywhere; a trailing space-star needs the boundary but may match nothing', () => {
    const d = decider({ allow: ['Bash(ls *)', 'Bash(git * main)', 'Bash(* --version)'] })
    expect(d.bash('ls').decision).toBe('allow')
    expect(d.bash('ls -la').decision).toBe('allow')
    expect(d.bash('lsof').decision).toBe('ask')
    expect(d.bash('git checkout main').decision).toBe('allow')
    expect(d.bash('git checkout mainline').decision).toBe('ask')
    expect(d.bash('node --version').decision).toBe('allow')
    expect(d.bash('node --versions').decision).toBe('ask')
    const glued = decider({ allow: ['Bash(ls*)'] })
    expect(glued.bash('lsof').decision).toBe('allow')
  })

  it('quoting is removed before matching, both ways', () => {
    const d = decider({ allow: ['Bash(git status)'] })
    expect(d.bash('git "status"').decision).toBe('allow')
    expect(d.bash("'git' status").decision).toBe('allow')
    expect(d.bash('git "status --porcelain"').decision).toBe('ask')
  })

  it('precedence is deny > ask > allow, whatever the specificity', () => {
    const d = decider({ allow: ['Bash(aws s3 ls)'], ask: ['Bash(aws s3 *)'], deny: ['Bash(aws s3 rm *)'] })
    expect(d.bash('aws s3 ls').decision).toBe('ask')
    expect(d.bash('aws s3 rm s3://b/k').decision).toBe('deny')
    expect(d.bash('aws s3 rm s3://b/k').rule?.text).toBe('Bash(aws s3 rm *)')
    const broad = decider({ allow: ['Bash(aws s3 ls)'], deny: ['Bash(aws *)'] })
    expect(broad.bash('aws s3 ls').decision).toBe('deny')
  })

  it('compound commands: every part must be allowed, any denied part denies', () => {
    const d = decider({ allow: ['Bash(git status)', 'Bash(npm test)'], deny: ['Bash(rm:*)'] })
    expect(d.bash('git status && npm test').decision).toBe('allow')
    expect(d.bash('git status && npm run lint').decision).toBe('ask')
    expect(d.bash('git status; rm -rf build').decision).toBe('deny')
    expect(d.bash('(git status) | (npm test)').decision).toBe('allow')
  })
})

describe('path specifiers', () => {
  it('bare and ./ paths are from the workspace; ./.env is not .env.example', () => {
    const d = decider({ deny: ['Read(./.env)'] })
    expect(d('Read', { file_path: `${WORKSPACE}/.env` }).decision).toBe('deny')
    expect(d('Read', { file_path: '.env' }).decision).toBe('deny')
    expect(d('Read', { file_path: `${WORKSPACE}/.env.example` }).decision).toBe('allow')
    expect(d('Read', { file_path: `${WORKSPACE}/sub/.env` }).decision).toBe('allow')
  })

  it('a bare pattern without a slash matches at any depth, as in .gitignore', () => {
    const d = decider({ deny: ['Read(*.pem)'] })
    expect(d('Read', { file_path: `${WORKSPACE}/a/b/key.pem` }).decision).toBe('deny')
    expect(d('Read', { file_path: `${WORKSPACE}/a/b/key.pem.txt` }).decision).toBe('allow')
    expect(d('Read', { file_path: '/elsewhere/key.pem' }).decision).not.toBe('deny')
  })

  it('Edit(src/**) covers Write and Edit below src only', () => {
    const d = decider({ allow: ['Edit(src/**)'] })
    expect(d('Edit', { file_path: `${WORKSPACE}/src/a/b.ts` }).decision).toBe('allow')
    expect(d('Write', { file_path: `${WORKSPACE}/src/new.ts` }).decision).toBe('allow')
    expect(d('Write', { file_path: `${WORKSPACE}/srcx/new.ts` }).decision).toBe('ask')
    expect(d('Write', { file_path: `${WORKSPACE}/README.md` }).decision).toBe('ask')
  })

  it('// is absolute, ~/ is the home, / is the project root', () => {
    const d = decider({ deny: ['Read(//etc/shadow)', 'Read(~/.ssh/**)', 'Edit(/docs/**)'] }, { root: '/work/root' })
    expect(d('Read', { file_path: '/etc/shadow' }).decision).toBe('deny')
    expect(d('Read', { file_path: '/etc/shadowx' }).decision).not.toBe('deny')
    expect(d('Read', { file_path: `${HOME}/.ssh/id_ed25519` }).decision).toBe('deny')
    expect(d('Read', { file_path: `${WORKSPACE}/.ssh/id_ed25519` }).decision).not.toBe('deny')
    expect(d('Edit', { file_path: '/work/root/docs/a.md' }).decision).toBe('deny')
    expect(d('Edit', { file_path: `${WORKSPACE}/docs/a.md` }).decision).toBe('ask')
  })

  it('Read rules cover Grep, Glob and LS; a directory rule covers what is below it', () => {
    const d = decider({ deny: ['Read(./secrets/)'] })
    expect(d('Grep', { pattern: 'x', path: 'secrets' }).decision).toBe('deny')
    expect(d('Read', { file_path: 'secrets/a.txt' }).decision).toBe('deny')
    expect(d('LS', { path: 'public' }).decision).toBe('allow')
  })

  it('deny compares case-insensitively, allow exactly', () => {
    const deny = decider({ deny: ['Read(./.env)'] })
    expect(deny('Read', { file_path: '.ENV' }).decision).toBe('deny')
    const allow = decider({ allow: ['Edit(./notes.md)'] })
    expect(allow('Edit', { file_path: 'notes.md' }).decision).toBe('allow')
    expect(allow('Edit', { file_path: 'NOTES.md' }).decision).toBe('ask')
  })
})

describe('WebFetch and MCP names', () => {
  it('WebFetch(domain:…) matches the URL host, not a look-alike', () => {
    const d = decider({ allow: ['WebFetch(domain:github.com)'], deny: ['WebFetch(domain:*.evil.test)'] })
    expect(d('WebFetch', { url: 'https://github.com/x' }).decision).toBe('allow')
    expect(d('WebFetch', { url: 'https://github.com.evil.test/x' }).decision).toBe('deny')
    expect(d('WebFetch', { url: 'https://gist.github.com/x' }).decision).toBe('ask')
    // a URL that cannot be read might be the denied host: the deny rule meets it
    expect(d('WebFetch', { url: 'not a url' }).decision).toBe('deny')
    expect(decider({ allow: ['WebFetch(domain:github.com)'] })('WebFetch', { url: 'not a url' }).decision).toBe('ask')
  })

  it('mcp__server, mcp__server__* and mcp__server__tool', () => {
    const d = decider({ allow: ['mcp__github', 'mcp__fs__read_file'], deny: ['mcp__shell__*'] })
    expect(d('mcp__github__create_issue', {}).decision).toBe('allow')
    expect(d('mcp__githubx__create_issue', {}).decision).toBe('ask')
    expect(d('mcp__fs__read_file', {}).decision).toBe('allow')
    expect(d('mcp__fs__write_file', {}).decision).toBe('ask')
    expect(d('mcp__shell__run', {}).decision).toBe('deny')
  })
})

describe('modes', () => {
  const write = { file_path: `${WORKSPACE}/a.txt`, content: 'x' }
  it('default: read-only tools run, Bash/Write/Edit/WebFetch ask', () => {
    const d = decider({})
    expect(d('Read', { file_path: 'a' }).decision).toBe('allow')
    expect(d('Read', { file_path: 'a' }).rule).toBeUndefined()
    expect(d('Write', write).decision).toBe('ask')
    expect(d.bash('ls').decision).toBe('ask')
    expect(d('WebFetch', { url: 'https://example.com' }).decision).toBe('ask')
    expect(d('Read', { file_path: '/etc/hosts' }).decision).toBe('ask')
  })

  it('acceptEdits: edits inside the workspace and additionalDirectories run, outside ask, Bash asks', () => {
    const d = decider({ defaultMode: 'acceptEdits', additionalDirectories: ['/data/extra'] })
    expect(d('Write', write).decision).toBe('allow')
    expect(d('Edit', { file_path: '/data/extra/b.txt' }).decision).toBe('allow')
    expect(d('Write', { file_path: '/data/extrax/b.txt' }).decision).toBe('ask')
    expect(d.bash('ls').decision).toBe('ask')
  })

  it('plan: only read-only tools; others denied with a reason, even when a rule allows', () => {
    const d = decider({ defaultMode: 'plan', allow: ['Bash(ls)', 'mcp__dsh__write'] })
    expect(d('Read', { file_path: 'a' }).decision).toBe('allow')
    const bash = d.bash('ls')
    expect(bash.decision).toBe('deny')
    expect(bash.reason).toMatch(/mode plan/)
    expect(d('Write', write).decision).toBe('deny')
  })

  it('bypassPermissions: no asks, deny rules still deny', () => {
    const d = decider({ defaultMode: 'bypassPermissions', deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] })
    expect(d.bash('make all').decision).toBe('allow')
    expect(d.bash('git push').decision).toBe('allow')
    expect(d.bash('rm -rf x').decision).toBe('deny')
    // a command it cannot read might hide the denied one
    expect(d.bash('eval "$X"').decision).toBe('deny')
  })

  it('dontAsk: anything not allowed is denied', () => {
    const d = decider({ defaultMode: 'dontAsk', allow: ['Bash(npm test)'] })
    expect(d.bash('npm test').decision).toBe('allow')
    expect(d.bash('npm publish').decision).toBe('deny')
    expect(d('Write', write).decision).toBe('deny')
    expect(d('Read', { file_path: 'a' }).decision).toBe('allow')
  })
})

describe('Codex presets', () => {
  it('untrusted: read-only commands run, anything else asks (also a dangerous use of a listed one)', () => {
    const d = decider({}, { preset: 'untrusted' })
    expect(d.bash('ls -la && git status && cat a | wc -l').decision).toBe('allow')
    expect(d.bash('git push').decision).toBe('ask')
    expect(d.bash('find . -name x -delete').decision).toBe('ask')
    expect(d.bash("sed -n '1,5p' a.txt").decision).toBe('allow')
    expect(d.bash("sed -i 's/a/b/' a.txt").decision).toBe('ask')
    expect(d.bash('unknown-tool').decision).toBe('ask')
  })

  it('on-request: require_escalated asks for workspace-write with the justification', () => {
    const d = decider({ deny: ['Bash(rm:*)'] }, { preset: 'on-request' })
    expect(d.bash('make').decision).toBe('allow')
    const escalated = d.bash('make install', { sandbox_permissions: 'require_escalated', justification: 'install into ./dist' })
    expect(escalated.decision).toBe('ask')
    expect(escalated.sandboxMode).toBe('workspace-write')
    expect(escalated.reason).toContain('install into ./dist')
    expect(d.bash('rm -rf /', { sandbox_permissions: 'require_escalated', justification: 'x' }).decision).toBe('deny')
  })

  it('never: nothing asks; what would ask is denied', () => {
    const d = decider({ ask: ['Bash(git push:*)'] }, { preset: 'never' })
    expect(d.bash('git push').decision).toBe('deny')
    expect(d.bash('make').decision).toBe('deny')
    expect(d('Read', { file_path: 'a' }).decision).toBe('allow')
  })
})
