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
