/**
 * grep's `type` argument: ripgrep's type names (`rg --type-list`) for the
 * languages agents search most, each a set of file-name globs. An unknown
 * name is refused with the list, never matched as nothing.
 */
const TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  clojure: ['*.clj', '*.cljc', '*.cljs', '*.cljx'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  cpp: ['*.[ChH]', '*.cc', '*.[ch]pp', '*.[ch]xx', '*.hh', '*.inl', '*.[ChH].in', '*.cc.in', '*.[ch]pp.in', '*.[ch]xx.in', '*.hh.in'],
  cs: ['*.cs'],
  css: ['*.css', '*.scss'],
  dart: ['*.dart'],
  docker: ['*Dockerfile*'],
  elixir: ['*.ex', '*.eex', '*.exs', '*.heex', '*.leex', '*.livemd'],
  erlang: ['*.erl', '*.hrl'],
  go: ['*.go'],
  haskell: ['*.hs', '*.lhs', '*.cpphs', '*.c2hs', '*.hsc'],
  html: ['*.htm', '*.html', '*.ejs'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  json: ['*.json', 'composer.lock', '*.sarif'],
  jsonl: ['*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  lua: ['*.lua'],
  make: ['[Gg][Nn][Uu]makefile', '[Mm]akefile', '[Gg][Nn][Uu]makefile.am', '[Mm]akefile.am', '[Gg][Nn][Uu]makefile.in', '[Mm]akefile.in', '*.mk', '*.mak'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn', '*.mdx'],
  nix: ['*.nix'],
  ocaml: ['*.ml', '*.mli', '*.mll', '*.mly'],
  perl: ['*.perl', '*.pl', '*.PL', '*.plh', '*.plx', '*.pm', '*.t'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.php7', '*.php8', '*.pht', '*.phtml'],
  proto: ['*.proto'],
  py: ['*.py', '*.pyi'],
  python: ['*.py', '*.pyi'],
  r: ['*.R', '*.r', '*.Rmd', '*.Rnw'],
  ruby: ['Gemfile', '*.gemspec', '.irbrc', 'Rakefile', '*.rb', '*.rbw'],
  rust: ['*.rs'],
  scala: ['*.scala', '*.sbt'],
  sh: ['*.bash', '*.bashrc', '.bash_*', '*.csh', '*.cshrc', '*.ksh', '*.kshrc', '*.sh', '*.tcsh', '*.zsh', '.zshrc', '.zprofile', '.zshenv'],
  sql: ['*.sql', '*.psql'],
  svelte: ['*.svelte'],
  swift: ['*.swift'],
  tex: ['*.tex', '*.ltx', '*.cls', '*.sty', '*.bib', '*.dtx', '*.ins'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  typescript: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  txt: ['*.txt'],
  vue: ['*.vue'],
  xml: ['*.xml', '*.xml.dist', '*.dtd', '*.xsl', '*.xslt', '*.xsd', '*.xjb', '*.rng', '*.sch', '*.xhtml'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
}

/** The name globs of a ripgrep type; throws naming the known types. */
export function typeGlobs(type: string): readonly string[] {
  const globs = Object.hasOwn(TYPES, type) ? TYPES[type] : undefined
  if (!globs) throw new RangeError(`unknown file type ${JSON.stringify(type)}; known types: ${Object.keys(TYPES).join(', ')} (or filter with glob instead)`)
  return globs
}
