/**
 * `data-code-language` of fenced code blocks, as Zulip sets it (fenced_code.py `format_code`):
 * the name of the Pygments lexer the fence's language selects (`find_lexer_class_by_name(lang)
 * .name`, so aliases are canonicalized: `py` → `Python`, `js` → `JavaScript`), or the language as
 * written (lowercased) when Pygments has no such lexer. Clients use it for "view in playground"
 * (realm code playgrounds are keyed by this Pygments name).
 *
 * The table covers the lexers people commonly use in chat; a language missing from it keeps the
 * lowercased name, which is what Zulip shows for languages Pygments does not know. Pygments'
 * token spans (syntax highlighting) are not produced: no maintained npm library emits Pygments'
 * class names, so the code inside stays plain escaped text.
 */
import type { MarkdownPlugin } from '../render.js';
import { codehiliteHtml, type FenceHandler } from './preprocess.js';

/** Pygments lexer name → its aliases (Pygments 2.x `lexers/_mapping.py`). */
const LEXERS: Readonly<Record<string, readonly string[]>> = {
  Python: ['python', 'py', 'sage', 'python3', 'py3', 'bazel', 'starlark'],
  'Python 2.x': ['python2', 'py2'],
  'Python console session': ['pycon', 'python-console'],
  'Python Traceback': ['pytb', 'py3tb'],
  JavaScript: ['javascript', 'js'],
  TypeScript: ['typescript', 'ts'],
  JSON: ['json', 'json-object'],
  Java: ['java'],
  C: ['c'],
  'C++': ['cpp', 'c++'],
  'C#': ['csharp', 'c#', 'cs'],
  'Objective-C': ['objective-c', 'objectivec', 'obj-c', 'objc'],
  Go: ['go', 'golang'],
  Rust: ['rust', 'rs'],
  Ruby: ['ruby', 'rb', 'duby'],
  PHP: ['php', 'php3', 'php4', 'php5'],
  'CSS+PHP': ['css+php'],
  'HTML+PHP': ['html+php'],
  'JavaScript+PHP': ['javascript+php', 'js+php'],
  'XML+PHP': ['xml+php'],
  HTML: ['html'],
  XML: ['xml'],
  CSS: ['css'],
  SCSS: ['scss'],
  Sass: ['sass'],
  YAML: ['yaml'],
  TOML: ['toml'],
  INI: ['ini', 'cfg', 'dosini'],
  Bash: ['bash', 'sh', 'ksh', 'zsh', 'shell', 'openrc'],
  'Bash Session': ['console', 'shell-session'],
  PowerShell: ['powershell', 'pwsh', 'posh', 'ps1', 'psm1'],
  Batchfile: ['batch', 'bat', 'dosbatch', 'winbatch'],
  SQL: ['sql'],
  PostgreSQL: ['postgresql', 'postgres'],
  MySQL: ['mysql'],
  TeX: ['tex', 'latex'],
  Markdown: ['markdown', 'md'],
  Diff: ['diff', 'udiff'],
  Kotlin: ['kotlin'],
  Swift: ['swift'],
  Scala: ['scala'],
  Haskell: ['haskell', 'hs'],
  Perl: ['perl', 'pl'],
  Lua: ['lua'],
  Dart: ['dart'],
  Elixir: ['elixir', 'ex', 'exs'],
  Erlang: ['erlang'],
  Clojure: ['clojure', 'clj'],
  OCaml: ['ocaml'],
  'F#': ['fsharp', 'f#'],
  Julia: ['julia', 'jl'],
  Scheme: ['scheme', 'scm'],
  'Common Lisp': ['common-lisp', 'cl', 'lisp'],
  Elm: ['elm'],
  Groovy: ['groovy'],
  Docker: ['docker', 'dockerfile'],
  Makefile: ['make', 'makefile', 'mf', 'bsdmake'],
  'VB.net': ['vb.net', 'vbnet', 'lobas', 'oobas', 'sobas', 'visual-basic', 'visualbasic'],
  Matlab: ['matlab'],
  CoffeeScript: ['coffeescript', 'coffee-script', 'coffee'],
  HTTP: ['http'],
  Awk: ['awk', 'gawk', 'mawk', 'nawk'],
  'Text only': ['text'],
  GraphQL: ['graphql'],
};

/** Alias (lowercase) → Pygments lexer name, built once. */
export const PYGMENTS_NAME_BY_ALIAS: ReadonlyMap<string, string> = new Map(
  Object.entries(LEXERS).flatMap(([name, aliases]) => aliases.map((alias) => [alias, name] as [string, string])),
);

/** A code fence whose `data-code-language` is the Pygments lexer name. */
function codeFence(lexerName: string): FenceHandler {
  return { processContents: false, format: (text) => codehiliteHtml(text, lexerName) };
}

/** Fenced code with Zulip's canonical `data-code-language` for known languages. */
export const codeLanguagePlugin: MarkdownPlugin = {
  name: 'code-language',
  fenceHandlers: Object.fromEntries([...PYGMENTS_NAME_BY_ALIAS].map(([alias, name]) => [alias, codeFence(name)])),
};
