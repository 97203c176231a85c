/**
 * Emphasis-like inline syntax in linear time: `*em*` (30), `***strong em***` (100) and
 * `~~del~~` (25), with the regexes of Zulip's `build_inlinepatterns`
 * (zerver/lib/markdown/__init__.py) and Python-Markdown's semantics.
 *
 * Python-Markdown replaces the leftmost match, then rescans the text from its start, because a
 * placeholder can complete an enclosing match (`*a *b* c*` → `<em>a <em>b</em> c</em>`): that
 * loop costs O(matches × length), 20 s for 80 KB of `*a`. This module computes the same result
 * in one pass, from what the three regexes have in common:
 *
 * - a match is an opening delimiter, content, and a closing delimiter, where the content holds
 *   no delimiter character, so opener and closer are consecutive runs of that character;
 * - the opener is the LAST `unit` characters of its run, the closer the FIRST `unit` of the next
 *   run (`**a*` → `*<em>a</em>`), and a run may only open/close at some lengths (`~~` exactly 2);
 * - content may not contain barrier characters (`\n`, and `^` for the star patterns), and for
 *   the star patterns may not start or end with whitespace;
 * - a placeholder holds none of those characters and no whitespace.
 *
 * So after a replacement only the pair (previous run, next run) around the new placeholder can
 * newly match, and every pair further left stays invalid: a stack of runs with the gap text
 * before each, reducing the top pair whenever it becomes valid, replaces the matches in exactly
 * the order of the rescanning loop (leftmost first), hence with the same placeholder numbers.
 */
import type { InlineNode, InlinePattern } from './inline-engine.js';

/** One delimiter syntax. */
interface DelimiterSyntax {
  /** The delimiter character. */
  char: string;
  /** Characters the content may not contain (besides `char`). */
  barriers: string;
  /** Delimiter characters used by one opener or closer. */
  unit: number;
  /** Whether a run of `length` delimiter characters may open or close (with `unit` of them). */
  usable(length: number): boolean;
  /** Content must not start or end with whitespace (`(?!\s+)` / `(?<!\s)` in the regex). */
  trimmed: boolean;
  open: string;
  close: string;
  /** Matches the delimiter and barrier characters (global; built once per syntax). */
  special: RegExp;
}

/** Text between two runs, kept as pieces (joined once, when it becomes an element's content). */
interface Gap {
  parts: string[];
  first: string;
  last: string;
}

interface Run {
  gapBefore: Gap;
  length: number;
}

const WHITESPACE = /\s/;
const emptyGap = (): Gap => ({ parts: [], first: '', last: '' });

function append(gap: Gap, text: string): void {
  if (text === '') return;
  gap.parts.push(text);
  if (gap.first === '') gap.first = text[0]!;
  gap.last = text[text.length - 1]!;
}

function validContent(gap: Gap, trimmed: boolean): boolean {
  if (gap.first === '') return false;
  return !trimmed || (!WHITESPACE.test(gap.first) && !WHITESPACE.test(gap.last));
}

/**
 * Replaces every match of `syntax` in `data` (see the module comment), calling `stash` with each
 * element node in the order Python-Markdown would replace them; returns the new text.
 */
export function reduceDelimiterRuns(data: string, syntax: DelimiterSyntax, stash: (node: InlineNode) => string): string {
  if (!data.includes(syntax.char)) return data;
  const special = syntax.special;
  const out: string[] = [];
  let stack: Run[] = [];
  let cur = emptyGap();
  const flush = (): void => {
    for (const run of stack) out.push(...run.gapBefore.parts, syntax.char.repeat(run.length));
    out.push(...cur.parts);
    stack = [];
    cur = emptyGap();
  };
  let i = 0;
  while (i < data.length) {
    special.lastIndex = i;
    const m = special.exec(data);
    if (m === null) {
      append(cur, data.slice(i));
      break;
    }
    const j = m.index;
    append(cur, data.slice(i, j));
    if (data[j] !== syntax.char) {
      // A barrier: no match spans it, so nothing before it can pair any more.
      flush();
      out.push(data[j]!);
      i = j + 1;
      continue;
    }
    let end = j + 1;
    while (data[end] === syntax.char) end++;
    i = end;
    let length = end - j;
    for (;;) {
      const top = stack[stack.length - 1];
      if (top !== undefined && syntax.usable(top.length) && syntax.usable(length) && validContent(cur, syntax.trimmed)) {
        const placeholder = stash({ kind: 'element', open: syntax.open, close: syntax.close, content: cur.parts.join('') });
        top.length -= syntax.unit;
        length -= syntax.unit;
        if (top.length === 0) {
          stack.pop();
          cur = top.gapBefore;
        } else {
          cur = emptyGap();
        }
        append(cur, placeholder);
        if (length === 0) break;
      } else {
        stack.push({ gapBefore: cur, length });
        cur = emptyGap();
        break;
      }
    }
  }
  flush();
  return out.join('');
}

function escapeClass(chars: string): string {
  return chars.replace(/[\]\\^-]/g, '\\$&').replace(/\n/g, '\\n');
}

function delimiterPattern(name: string, priority: number, options: Omit<DelimiterSyntax, 'special'>): InlinePattern {
  const syntax: DelimiterSyntax = { ...options, special: new RegExp(`[${escapeClass(options.char + options.barriers)}]`, 'g') };
  return { name, priority, replaceAll: (data, _ctx, stash) => reduceDelimiterRuns(data, syntax, stash) };
}

/** `***strong em***`: Zulip's `(\*\*\*)(?!\s+)([^*^\n]+)(?<!\s)\*\*\*`, priority 100. */
export const strongEmPattern = delimiterPattern('strong_em', 100, {
  char: '*',
  barriers: '^\n',
  unit: 3,
  usable: (length) => length >= 3,
  trimmed: true,
  open: '<strong><em>',
  close: '</em></strong>',
});

/** `*em*`: Zulip's `(\*)(?!\s+)([^*^\n]+)(?<!\s)\*`, priority 30. */
export const emphasisPattern = delimiterPattern('emphasis', 30, {
  char: '*',
  barriers: '^\n',
  unit: 1,
  usable: (length) => length >= 1,
  trimmed: true,
  open: '<em>',
  close: '</em>',
});

/** `~~del~~`: Zulip's `(?<!~)(~~)([^~\n]+?)(~~)(?!~)` (runs of exactly two tildes), priority 25. */
export const delPattern = delimiterPattern('del', 25, {
  char: '~',
  barriers: '\n',
  unit: 2,
  usable: (length) => length === 2,
  trimmed: false,
  open: '<del>',
  close: '</del>',
});
