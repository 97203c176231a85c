/**
 * Python regular expressions (linkifier patterns, https://zulip.com/api/get-linkifiers) in a
 * JavaScript server.
 *
 * **Choice: RE2, like Zulip.** Zulip compiles linkifier patterns with RE2 (`re2.compile`), so the
 * set of accepted patterns is RE2's: no backreferences, no lookaround, no possessive or atomic
 * groups, no conditionals. parley validates *and matches* with `re2js`, a pure-JavaScript port of
 * RE2/RE2J (no native build, no download). RE2 matching is linear in the input, so no pattern —
 * however pathological, e.g. `(a+)+$` — can stall the server (catastrophic backtracking cannot
 * happen). RE2 also caps repetition counts (`x{1001}` → "invalid repetition size").
 *
 * `checkRe2` gives RE2's error in the wording of the C++ RE2 library Zulip uses (re2js words some
 * errors as Go does; {@link RE2_MESSAGES} maps them), so `"Bad regular expression: missing ): (foo"`
 * matches Zulip.
 *
 * `translatePythonRegex` is a separate utility for code that wants a native `RegExp` (e.g. a
 * client-side preview): it rewrites Python syntax to JavaScript (`(?P<n>` → `(?<n>`, `(?P=n)` →
 * `\k<n>`, leading inline flags → RegExp flags, `\A`/`\Z`) and rejects what has no safe
 * JavaScript equivalent (possessive quantifiers, atomic groups, conditionals, scoped or mid-pattern
 * flags, verbose/ASCII/locale flags). Native RegExps backtrack: only use them on patterns that
 * also passed `checkRe2`, or with bounded input.
 */
import { RE2JS } from 're2js';

/** A compiled RE2 pattern and its named groups (name → group index). */
export interface Re2Compiled {
  regex: RE2JS;
  groupNames: string[];
}

/** re2js (Go wording) → C++ RE2 wording (`RE2::ErrorCode` texts), as Zulip reports them. */
const RE2_MESSAGES: ReadonlyArray<[string, string]> = [
  ['missing closing )', 'missing )'],
  ['missing closing ]', 'missing ]'],
  ['missing argument to repetition operator', 'no argument for repetition operator'],
  ['invalid nested repetition operator', 'bad repetition operator'],
  ['invalid repeat count', 'bad repetition operator'],
  ['invalid or unsupported Perl syntax', 'invalid perl operator'],
  ['invalid named capture', 'invalid named capture group'],
  ['trailing backslash at end of expression', 'trailing \\'],
  ['unexpected )', 'unexpected )'],
  ['invalid escape sequence', 'invalid escape sequence'],
  ['invalid character class range', 'invalid character class range'],
  ['invalid character class', 'invalid character class'],
  ['invalid UTF-8', 'invalid UTF-8'],
];

/** Turns a re2js error message into RE2's `<code text>: <argument>`. */
function re2Message(raw: string): string {
  let text = raw.replace(/^error parsing regexp: /, '');
  const m = /^(.*?): `([\s\S]*)`$/.exec(text);
  let code = m ? m[1]! : text;
  const arg = m ? m[2]! : '';
  if (code === 'invalid repeat count') {
    // RE2 C++: an out-of-range {n,m} is "bad repetition operator"; {n,m} with n > m too.
    code = 'bad repetition operator';
  } else {
    const mapped = RE2_MESSAGES.find(([go]) => go === code);
    if (mapped) code = mapped[1];
  }
  text = arg === '' ? code : `${code}: ${arg}`;
  return text;
}

/**
 * Compiles `pattern` with RE2 semantics. Returns the compiled regex and its named groups, or
 * RE2's error text (without Zulip's "Bad regular expression: " prefix).
 */
export function checkRe2(pattern: string): { ok: true; value: Re2Compiled } | { ok: false; message: string } {
  try {
    const regex = RE2JS.compile(pattern);
    return { ok: true, value: { regex, groupNames: Object.keys(regex.namedGroups()) } };
  } catch (e) {
    return { ok: false, message: re2Message(e instanceof Error ? e.message : String(e)) };
  }
}

/** A Python pattern rewritten for JavaScript's `RegExp`. */
export interface JsRegexSource {
  source: string;
  flags: string;
}

const JS_FLAG: Readonly<Record<string, string>> = { i: 'i', m: 'm', s: 's', u: '' };

/**
 * Translates a Python `re` pattern to a JavaScript `RegExp` source and flags, or returns an error
 * message for constructs JavaScript cannot express safely:
 * possessive quantifiers (`a*+`), atomic groups (`(?>...)`), conditionals (`(?(1)...)`),
 * scoped flags (`(?i:...)`), inline flags anywhere but at the very start, and the `a`/`L`/`x`
 * flags. Lookahead and lookbehind are kept (JavaScript has both). The result is compiled once to
 * check it; `\w`, `\d`, `\s` keep JavaScript's (ASCII) meaning.
 */
export function translatePythonRegex(pattern: string): { ok: true; value: JsRegexSource } | { ok: false; message: string } {
  const err = (message: string) => ({ ok: false as const, message });
  let out = '';
  let flags = '';
  let i = 0;
  let inClass = false;
  // Global inline flags, only at the start (Python 3.11+ rejects them elsewhere).
  while (!inClass) {
    const m = /^\(\?([aiLmsux]+)\)/.exec(pattern.slice(i));
    if (!m) break;
    for (const f of m[1]!) {
      if (!(f in JS_FLAG)) return err(`unsupported inline flag: (?${f})`);
      if (JS_FLAG[f] && !flags.includes(JS_FLAG[f]!)) flags += JS_FLAG[f];
    }
    i += m[0].length;
  }
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return err('bad escape (end of pattern)');
      if (!inClass && next === 'A') out += '(?<![\\s\\S])';
      else if (!inClass && next === 'Z') out += '(?![\\s\\S])';
      else out += c + next;
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      i++;
      // A leading ']' (or '^]') is a literal in Python, not in JavaScript.
      if (pattern[i] === '^') { out += '^'; i++; }
      if (pattern[i] === ']') { out += '\\]'; i++; }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2);
      let m: RegExpExecArray | null;
      if ((m = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
        out += `(?<${m[1]}>`;
        i += 2 + m[0].length;
        continue;
      }
      if ((m = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest))) {
        out += `\\k<${m[1]}>`;
        i += 2 + m[0].length;
        continue;
      }
      if (rest.startsWith('>')) return err('atomic groups (?>...) are not supported');
      if (rest.startsWith('(')) return err('conditional groups (?(...)...) are not supported');
      if (/^[aiLmsux-]+[:)]/.test(rest)) return err('inline flags are only supported at the start of the pattern');
      if (/^(?::|=|!|<=|<!|#)/.test(rest)) {
        if (rest.startsWith('#')) {
          // Python comment group: dropped.
          const end = pattern.indexOf(')', i);
          if (end < 0) return err('missing ), unterminated comment');
          i = end + 1;
          continue;
        }
        out += '(?';
        i += 2;
        continue;
      }
      return err(`unknown extension ?${rest.slice(0, 1)}`);
    }
    if ((c === '*' || c === '+' || c === '?' || c === '}') && pattern[i + 1] === '+') {
      return err('possessive quantifiers are not supported');
    }
    out += c;
    i++;
  }
  try {
    new RegExp(out, flags);
  } catch (e) {
    return err(e instanceof Error ? e.message : String(e));
  }
  return { ok: true, value: { source: out, flags } };
}
