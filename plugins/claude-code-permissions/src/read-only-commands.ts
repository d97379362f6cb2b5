/**
 * The commands the `untrusted` preset runs without asking — Codex's idea of a
 * "known safe" command: it only reads. Each entry says which of its options
 * would make it write or run something else; such a use asks like any other
 * command. A command not listed asks.
 */
import { programName } from './wrappers.js'

type Check = (args: readonly string[]) => boolean

const any: Check = () => true
const without = (...forbidden: string[]): Check => (args) =>
  !args.some((arg) => forbidden.some((flag) => arg === flag || arg.startsWith(`${flag}=`) || (flag.length === 2 && /^-[A-Za-z]+$/.test(arg) && arg.includes(flag[1]))))

const GIT_READ = new Set(['status', 'log', 'diff', 'show', 'blame', 'ls-files', 'rev-parse', 'describe', 'shortlog', 'grep'])

export const READ_ONLY_COMMANDS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['cat', any], ['head', any], ['tail', without('-f', '--follow')], ['wc', any], ['nl', any], ['ls', any], ['pwd', any],
  ['echo', any], ['printf', any], ['true', any], ['false', any], ['which', any], ['type', any], ['whoami', any], ['id', any],
  ['uname', any], ['date', without('-s', '--set')], ['stat', any], ['file', any], ['du', any], ['df', any], ['tree', without('-o')],
  ['cut', any], ['tr', any], ['uniq', (args) => args.filter((arg) => !arg.startsWith('-')).length <= 1], ['sort', without('-o', '--output')],
  ['grep', any], ['egrep', any], ['fgrep', any], ['rg', without('--pre', '--pre-glob')], ['basename', any], ['dirname', any],
  ['realpath', any], ['readlink', any], ['diff', any], ['cmp', any], ['md5sum', any], ['sha256sum', any], ['sha1sum', any],
  // find runs commands or deletes with these
  ['find', without('-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls')],
  // sed only reads as `sed -n '<lines>p' file…`: -i edits in place, and its `w`/`e` commands write or run
  ['sed', (args) => {
    const script = args.find((arg) => !arg.startsWith('-'))
    return args.includes('-n') && !args.some((arg) => arg.startsWith('-i') || arg.startsWith('--in-place')) && script !== undefined && /^(\d+|\$)?(,(\d+|\$))?p$/.test(script)
  }],
  ['git', (args) => {
    const sub = args.find((arg) => !arg.startsWith('-'))
    // `git -c` and `--exec-path` can run programs; only plain read-only subcommands
    return sub !== undefined && args[0] === sub && GIT_READ.has(sub) && !args.some((arg) => arg.startsWith('--output') || arg === '--ext-diff')
  }],
])

/** Whether a fully known simple command (name and arguments) is on the list. */
export function isReadOnlyCommand(words: readonly string[]): boolean {
  if (!words.length) return false
  const check = READ_ONLY_COMMANDS.get(programName(words[0]))
  return check !== undefined && check(words.slice(1))
}
