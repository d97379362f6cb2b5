// permissions.check_us: deciding one Bash call against 200 rules (claude-code-permissions),
// against the same call with an empty rule set in the same run. Rules are compiled once, as per
// load; the command's parse is cached (a model repeats commands) — the cold figure is in the note.
import { compileRuleSet, decide, INLINE, loadShellParser } from '@dsh/claude-code-permissions'
import { median, perIteration } from './lib.js'

const WORKSPACE = '/work/project'
const programs = ['git', 'npm', 'npx', 'node', 'make', 'cargo', 'go', 'python3', 'pip', 'docker', 'kubectl', 'terraform', 'aws', 'gcloud', 'yarn', 'pnpm', 'ls', 'cat', 'grep', 'find']
const verbs = ['status', 'log', 'diff', 'run test', 'run build', 'install', 'push', 'apply']

function rules() {
  const allow = []
  const ask = []
  const deny = []
  for (let i = 0; allow.length + ask.length + deny.length < 160; i++) {
    const program = programs[i % programs.length]
    const verb = verbs[Math.floor(i / programs.length) % verbs.length]
    const rule = i % 3 === 0 ? `Bash(${program} ${verb}:*)` : i % 3 === 1 ? `Bash(${program} ${verb} *)` : `Bash(${program} ${verb})`
    ;(i % 10 === 9 ? deny : i % 10 === 8 ? ask : allow).push(rule)
  }
  deny.push('Bash(rm -rf *)', 'Bash(curl:*)', 'Bash(* --force *)', 'Bash(sudo:*)')
  for (let i = 0; allow.length + ask.length + deny.length < 200; i++) {
    allow.push(i % 2 ? `Read(./src/m${i}/**)` : `Edit(src/m${i}/*.ts)`, `WebFetch(domain:site${i}.example)`)
    deny.push(`Read(./secret${i}.env)`)
  }
  return { allow, ask, deny }
}

export async function run() {
  await loadShellParser()
  const full = rules()
  const count = full.allow.length + full.ask.length + full.deny.length
  if (count < 200) throw new Error(`expected 200 rules, got ${count}`)
  const options = { workspace: WORKSPACE, home: '/home/user', extraTools: new Set() }
  const sets = {
    full: compileRuleSet([{ source: INLINE, root: WORKSPACE, permissions: full }], options),
    empty: compileRuleSet([{ source: INLINE, root: WORKSPACE, permissions: {} }], options),
  }
  const command = 'git status --short && npm run test -- --watch'
  const decideWith = (set, text) => decide({ tool: 'Bash', args: { command: text }, readOnly: false }, { set, mode: 'default', workspace: WORKSPACE, directories: [WORKSPACE] })
  if (decideWith(sets.full, command).decision !== 'allow') throw new Error('the benchmark command should be allowed by its rules')
  if (decideWith(sets.full, 'git status && rm -rf ~').decision !== 'deny') throw new Error('the benchmark rules should deny rm -rf')
  // in turns, so a stretch of load on this shared machine falls on both figures alike
  // short batches: on a loaded machine a long one is more often preempted in the middle
  const opts = { batch: 200, samples: 9, warmup: 2 }
  const ruledRounds = []
  const emptyRounds = []
  for (let round = 0; round < 9; round++) {
    ruledRounds.push(await perIteration(() => decideWith(sets.full, command), opts))
    emptyRounds.push(await perIteration(() => decideWith(sets.empty, command), opts))
  }
  const ruled = median(ruledRounds)
  const empty = median(emptyRounds)
  // a new command every time (more than the cache holds): the parse is not cached
  let fresh = 0
  const cold = await perIteration(() => decideWith(sets.full, `${command} ${++fresh}`), { batch: 200, samples: 9, warmup: 2 })
  return [
    {
      name: 'permissions.check_us',
      value: ruled * 1000,
      unit: 'µs',
      target: '<= 20',
      baseline: { name: 'the same call, empty rule set', value: empty * 1000, unit: 'µs' },
      note: `${count} rules; a command not parsed before: ${(cold * 1000).toFixed(1)} µs`,
    },
  ]
}
