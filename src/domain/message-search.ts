/**
 * The `search` narrow operator (https://zulip.com/api/get-messages,
 * https://zulip.com/api/get-message `match_content`/`match_subject`),
 * in a basic form of Zulip's PostgreSQL full-text search:
 *
 * - the operands of all `search` terms are joined with spaces (as Zulip does);
 * - every word of the query (letters and digits, case-insensitive, English stop words dropped,
 *   as `plainto_tsquery` does) must occur as a whole word in the message's topic or raw content;
 *   a query with no words left matches nothing (an empty tsquery matches nothing);
 * - every `"quoted phrase"` must also occur as a case-insensitive substring of the raw content
 *   or, for channel messages, of the topic (Zulip's `ILIKE` clause);
 * - no stemming: `message` does not find `messages` (Zulip's would).
 *
 * Highlighting wraps each occurrence of a query word outside HTML tags in
 * `<span class="highlight">…</span>`.
 */

/** PostgreSQL's English stop words (`english.stop`), which `plainto_tsquery` ignores. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers ' +
    'herself it its itself they them their theirs themselves what which who whom this that these those am is ' +
    'are was were be been being have has had having do does did doing a an the and but if or because as until ' +
    'while of at by for with about against between into through during before after above below to from up ' +
    'down in out on off over under again further then once here there when where why how all any both each few ' +
    'more most other some such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

/** A word: a run of letters and digits (PostgreSQL's parser also splits on `_`, `'`, punctuation). */
const WORD = /[\p{L}\p{N}]+/gu;

/** A parsed search query. */
export interface SearchQuery {
  /** Lower-cased query words (stop words dropped); each must occur as a word. */
  readonly words: readonly string[];
  /** Lower-cased quoted phrases; each must occur as a substring. */
  readonly phrases: readonly string[];
  /** One whole-word, case-insensitive test per word. */
  readonly wordTests: readonly RegExp[];
  /** Global whole-word alternation of all words, for highlighting; null when there are none. */
  readonly highlight: RegExp | null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function wholeWord(alternation: string, flags: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternation})(?![\\p{L}\\p{N}])`, flags);
}

/**
 * The distinct lower-cased words of `text` a query word can match, stop words left out (they are
 * never query words): the vocabulary of the search index (`message-word-index.ts`). Same
 * tokenizer as `parseSearch`, so a message whose text has query word `w` as a whole word has `w`
 * here (up to case folds that change a character's length, e.g. `İ`).
 */
export function indexableWords(text: string, into: Set<string> = new Set()): Set<string> {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(lower)) return asciiWords(lower, into);
  for (const m of lower.matchAll(WORD)) {
    const w = m[0];
    if (!STOP_WORDS.has(w)) into.add(w);
  }
  return into;
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * `indexableWords` for lower-cased ASCII text without the regex (it runs on every send): in ASCII,
 * `\p{L}` is `a-z` (after lower-casing) and `\p{N}` is `0-9`, so the runs are the same.
 */
function asciiWords(lower: string, into: Set<string>): Set<string> {
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    const wordChar = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (wordChar) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const w = lower.slice(start, i);
      if (!STOP_WORDS.has(w)) into.add(w);
      start = -1;
    }
  }
  return into;
}

/** Parses a (joined) search operand. */
export function parseSearch(operand: string): SearchQuery {
  const phrases: string[] = [];
  for (const m of operand.matchAll(/"[^"]+"|\S+/g)) {
    const term = m[0];
    if (term.length >= 2 && term.startsWith('"') && term.endsWith('"')) phrases.push(term.slice(1, -1).toLowerCase());
  }
  const words: string[] = [];
  for (const m of operand.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (!STOP_WORDS.has(w) && !words.includes(w)) words.push(w);
  }
  return {
    words,
    phrases,
    wordTests: words.map((w) => wholeWord(escapeRegExp(w), 'iu')),
    highlight: words.length === 0 ? null : wholeWord(words.map(escapeRegExp).join('|'), 'giu'),
  };
}

/**
 * Whether a message matches: every word in `topic` or `content`, every phrase in `content` (or
 * `topic` when `isChannel`).
 */
export function matchesSearch(q: SearchQuery, content: string, topic: string, isChannel: boolean): boolean {
  if (q.words.length === 0) return false;
  // Phrases first: a substring search is cheaper than the word regexes, and rarer to pass.
  if (q.phrases.length > 0) {
    const lowerContent = content.toLowerCase();
    const lowerTopic = isChannel ? topic.toLowerCase() : '';
    for (const p of q.phrases) {
      if (!lowerContent.includes(p) && !(isChannel && lowerTopic.includes(p))) return false;
    }
  }
  for (const test of q.wordTests) {
    if (!test.test(topic) && !test.test(content)) return false;
  }
  return true;
}

const HIGHLIGHT_START = '<span class="highlight">';
const HIGHLIGHT_END = '</span>';

function highlightText(text: string, re: RegExp): string {
  re.lastIndex = 0;
  return text.replace(re, (w) => HIGHLIGHT_START + w + HIGHLIGHT_END);
}

/** `html` with every query word outside tags wrapped in `<span class="highlight">` (`match_content`). */
export function highlightHtml(html: string, q: SearchQuery): string {
  const re = q.highlight;
  if (re === null) return html;
  let out = '';
  let pos = 0;
  for (const m of html.matchAll(/<[^>]*>/g)) {
    out += highlightText(html.slice(pos, m.index), re) + m[0];
    pos = m.index + m[0].length;
  }
  return out + highlightText(html.slice(pos), re);
}

/** Escapes like Zulip's SQL `escape_html` (applied to topics before highlighting). */
export function escapeTopicHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The HTML-escaped topic with query words highlighted (`match_subject`). */
export function highlightTopic(topic: string, q: SearchQuery): string {
  const escaped = escapeTopicHtml(topic);
  return q.highlight === null ? escaped : highlightText(escaped, q.highlight);
}
