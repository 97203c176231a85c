/**
 * `code` spans (priority 105) in linear time. Zulip's regex (Python-Markdown's `BACKTICK_RE`,
 * with Zulip keeping the spaces inside the backticks):
 *
 *     (?:(?<!\\)((?:\\{2})+)(?=`+)|(?<!\\)(`+)([\s\S]+?)(?<!`)\2(?!`))
 *
 * backtracks: an opening run of n backticks with no closing run of the same length is retried
 * with n-1, n-2... backticks and from every position inside the run, each attempt scanning to
 * the end of the text — 12 s for 10 KB of backtick runs of growing length. What the regex finds,
 * scanning left to right:
 *
 * - at the start of a run of backslashes (not preceded by `\`) of EVEN length followed by a
 *   backtick: that run, which stands for half as many backslashes (its backtick then cannot
 *   open a span at its first character: `(?<!\\)`);
 * - at a run of k backticks starting at a (or a+1 when `\` precedes it): the span opens with the
 *   largest j ≤ k (≤ k-1 from a+1) for which a later run of exactly j backticks exists, and
 *   closes at the first such run (a closing run is a whole run: `(?<!`)` and `(?!`)`);
 *   otherwise the run is text.
 *
 * Runs are indexed by length once, so each lookup is a binary search.
 */
import { escapeCode, type InlineNode, type InlinePattern } from './inline-engine.js';

/** Start positions of the maximal backtick runs of `data`, grouped by run length (ascending). */
function runsByLength(data: string): Map<number, number[]> {
  const byLength = new Map<number, number[]>();
  for (let i = data.indexOf('`'); i >= 0; ) {
    let end = i + 1;
    while (data.charCodeAt(end) === 0x60) end++;
    const list = byLength.get(end - i);
    if (list === undefined) byLength.set(end - i, [i]);
    else list.push(i);
    i = data.indexOf('`', end);
  }
  return byLength;
}

/** The first element of ascending `list` greater than `after`, or -1. */
function firstAfter(list: readonly number[] | undefined, after: number): number {
  if (list === undefined) return -1;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! > after) hi = mid;
    else lo = mid + 1;
  }
  return lo < list.length ? list[lo]! : -1;
}

const SPECIAL = /[\\`]/g;

/** Replaces code spans and escaped backslashes before backticks, as the regex above would. */
export function replaceBackticks(data: string, stash: (node: InlineNode) => string): string {
  if (!data.includes('`')) return data;
  const runs = runsByLength(data);
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < data.length) {
    SPECIAL.lastIndex = i;
    const m = SPECIAL.exec(data);
    if (m === null) break;
    const a = m.index;
    if (data[a] === '\\') {
      let end = a + 1;
      while (data.charCodeAt(end) === 0x5c) end++;
      const length = end - a;
      // `a` starts the run unless the scan resumed inside one (never: runs are skipped whole).
      if (length % 2 === 0 && data.charCodeAt(end) === 0x60 && data.charCodeAt(a - 1) !== 0x5c) {
        out += data.slice(copied, a) + stash('\\'.repeat(length / 2));
        copied = end;
      }
      i = end;
      continue;
    }
    let end = a + 1;
    while (data.charCodeAt(end) === 0x60) end++;
    const start = data.charCodeAt(a - 1) === 0x5c ? a + 1 : a;
    let matched = false;
    for (let j = end - start; j >= 1; j--) {
      const close = firstAfter(runs.get(j), a);
      if (close < 0) continue;
      const code = data.slice(start + j, close);
      out += data.slice(copied, start) + stash({ kind: 'html', html: `<code>${escapeCode(code)}</code>`, text: code });
      copied = close + j;
      i = close + j;
      matched = true;
      break;
    }
    if (!matched) i = end;
  }
  return copied === 0 ? data : out + data.slice(copied);
}

/** `code` spans, Zulip priority 105. */
export const backtickPattern: InlinePattern = {
  name: 'backtick',
  priority: 105,
  replaceAll: (data, _ctx, stash) => replaceBackticks(data, stash),
};
