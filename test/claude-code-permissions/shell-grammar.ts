/**
 * A generator of bash command lines for the parser fuzz: lists, pipelines,
 * subshells, groups, if/while/for/case, functions, substitutions, process
 * substitution, here-documents and every redirection operator bash has. Each
 * generated line knows the programs it placed in a command position
 * (`p0`…`p3`, which appear nowhere else in the text), so a test can replace
 * one of them with a denied program and expect the rules to see it.
 */
import fc from 'fast-check'

export interface Line {
  text: string
  /** the marker programs placed in a command position */
  programs: string[]
}

export const MARKERS = ['p0', 'p1', 'p2', 'p3'] as const

const join = (parts: Line[], sep: string): Line => ({ text: parts.map((part) => part.text).join(sep), programs: parts.flatMap((part) => part.programs) })
const lit = (text: string): Line => ({ text, programs: [] })

const literal = fc.constantFrom('a', '-x', '-rf', '--y', '/tmp/z', "'q q'", '"d d"', 'a\\ b', '1', 'x=y', '--opt=v', "''", '"a"b', '\\;', 'a#b')
const expansion = fc.constantFrom('$X', '${X:-a}', '"$X"', '$((1+2))', "$'\\x41'", '{a,b}', '*.ts', '$@', '"${A[@]}"', '~', '$"t"')
const target = fc.constantFrom('x', '/dev/null', '"o u t"', '$F', 'a.txt')
const simpleRedirect = fc.constantFrom(
  '&>x', '&>>x', '<<<x', '<<< "$X"', '<&0', '>&2', '2>&1', '3>&-', '3<&-', '>&-', '<&-', '{fd}>x', '{fd}<>x', '{fd}>&-', '1<>x', '2>|x', '0<x', '>& x', '&> x',
)

export function lineArbitrary(): fc.Arbitrary<Line> {
  const { statement } = fc.letrec<{ statement: Line; list: Line; command: Line; word: Line; redirect: Line }>((tie) => ({
    word: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'shell' },
      { weight: 5, arbitrary: literal.map(lit) },
      { weight: 3, arbitrary: expansion.map(lit) },
      { weight: 1, arbitrary: tie('list').map((inner) => ({ text: `$(${inner.text})`, programs: inner.programs })) },
      { weight: 1, arbitrary: tie('list').map((inner) => ({ text: `"$(${inner.text})"`, programs: inner.programs })) },
      { weight: 1, arbitrary: tie('list').map((inner) => ({ text: `<(${inner.text})`, programs: inner.programs })) },
      { weight: 1, arbitrary: tie('command').filter((c) => !/[`\\]/.test(c.text)).map((inner) => ({ text: `\`${inner.text}\``, programs: inner.programs })) },
    ),
    redirect: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'shell' },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('', '2', '3'), fc.constantFrom('>', '>>', '<', '<>', '>|'), fc.constantFrom('', ' '), target).map(([n, op, sp, t]) => lit(`${n}${op}${sp}${t}`)) },
      { weight: 3, arbitrary: simpleRedirect.map(lit) },
      { weight: 1, arbitrary: tie('list').map((inner) => ({ text: `> >(${inner.text})`, programs: inner.programs })) },
      { weight: 1, arbitrary: tie('list').map((inner) => ({ text: `< <(${inner.text})`, programs: inner.programs })) },
    ),
    command: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'shell', withCrossShrink: true },
      // [assignments] [redirects] name [words and redirects, interleaved]
      fc.tuple(
        fc.array(fc.constantFrom('A=1', 'B=$X', 'C='), { maxLength: 1 }),
        fc.array(tie('redirect'), { maxLength: 1 }),
        fc.constantFrom('', 'exec ', 'command ', 'nice ', 'timeout 5 ', 'env A=1 ', 'sudo ', 'nohup ', '! '),
        fc.constantFrom(...MARKERS),
        fc.array(fc.oneof({ weight: 3, arbitrary: tie('word') }, { weight: 2, arbitrary: tie('redirect') }), { maxLength: 3 }),
      ).map(([assigns, pre, wrapper, name, rest]) => {
        // `!` is a pipeline prefix: it goes before assignments and redirections
        const head = wrapper === '! ' ? '! ' : ''
        const parts = [...assigns.map(lit), ...pre, lit(`${wrapper === '! ' ? '' : wrapper}${name}`), ...rest]
        const line = join(parts, ' ')
        return { text: head + line.text, programs: [name, ...line.programs] }
      }),
      tie('list').map((inner) => ({ text: `( ${inner.text} )`, programs: inner.programs })),
      tie('list').map((inner) => ({ text: `{ ${inner.text}; }`, programs: inner.programs })),
      fc.tuple(tie('list'), tie('list')).map(([a, b]) => ({ text: `if ${a.text}; then ${b.text}; fi`, programs: [...a.programs, ...b.programs] })),
      fc.tuple(tie('list'), tie('list')).map(([a, b]) => ({ text: `while ${a.text}; do ${b.text}; done`, programs: [...a.programs, ...b.programs] })),
      tie('list').map((inner) => ({ text: `for v in a $X; do ${inner.text}; done`, programs: inner.programs })),
      tie('list').map((inner) => ({ text: `case $X in a|b) ${inner.text} ;; *) ;; esac`, programs: inner.programs })),
      tie('list').map((inner) => ({ text: `f() { ${inner.text}; }; f`, programs: inner.programs })),
      fc.tuple(tie('list'), tie('redirect')).map(([inner, r]) => ({ text: `{ ${inner.text}; } ${r.text}`, programs: [...inner.programs, ...r.programs] })),
    ),
    list: fc.tuple(tie('command'), fc.array(fc.tuple(fc.constantFrom(' && ', ' || ', '; ', ' | ', ' |& ', ' & '), tie('command')), { maxLength: 1 })).map(([first, rest]) => {
      let text = first.text
      const programs = [...first.programs]
      for (const [sep, next] of rest) {
        text += sep + next.text
        programs.push(...next.programs)
      }
      return { text, programs }
    }),
    statement: fc.oneof(
      { weight: 4, arbitrary: tie('list') },
      // a here-document: its body's substitutions run unless the delimiter is quoted
      { weight: 1, arbitrary: fc.tuple(tie('command'), fc.constantFrom('<<E', '<<-E', "<<'E'", '<<"E"', '<< E'), tie('list'), fc.constantFrom('', ' | cat', ' && true')).map(([command, op, body, after]) => {
        const quoted = op.includes("'") || op.includes('"')
        return { text: `${command.text} ${op}${after}\nx $(${quoted ? 'q' : body.text}) y\nE`, programs: [...command.programs, ...(quoted ? [] : body.programs)] }
      }) },
    ),
  }))
  return fc.array(statement, { minLength: 1, maxLength: 3 }).map((lines) => join(lines, '\n')).filter((line) => line.programs.length > 0 && line.text.length < 2000)
}
