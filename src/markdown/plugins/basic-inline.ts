/**
 * Zulip's basic inline syntax as {@link InlinePattern}s, with the regexes and priorities of
 * `ZulipMarkdown.build_inlinepatterns` (zerver/lib/markdown/__init__.py) and the link parsing
 * of Python-Markdown's `LinkInlineProcessor`:
 *
 *   105 backtick `code`        100 ***strong em***    60 [text](url)      55 bare URLs / emails
 *    40 &entities;              35 **strong**          30 *em*             25 ~~del~~
 *    20 lone * _ (not emphasis)  5 newline → <br>
 *
 * Zulip-specific patterns (mentions 95, TeX 90, channel links 85-89, timestamps 75, group
 * mentions 65, linkifiers 45-54, emoji 0-15) slot in between these numbers later.
 */
import {
  escapeAttr,
  escapeText,
  type InlineContext,
  type InlineMatch,
  type InlinePattern,
} from './inline-engine.js';
import { buildWebLinkRegex } from '../../domain/web-link-regex.js';
import { backtickPattern } from './backtick.js';
import { delPattern, emphasisPattern, strongEmPattern } from './delimiter-runs.js';
import { rewriteLocalLink, sanitizeUrl } from './url.js';

/**
 * `**strong**`: Zulip's `(\*\*)([^\n]+?)\1` (`SimpleTagPattern`), content processed further.
 * One left-to-right pass gives what Python-Markdown's rescan-after-each-match does: the leftmost
 * `**` pairs with the first `**` at least one character later on its line, so no text before a
 * match can pair with anything after it, and placeholders hold no `*`.
 */
const strong: InlinePattern = {
  name: 'strong',
  priority: 35,
  regex: /(\*\*)([^\n]+?)\1/g,
  legacy: true,
  global: true,
  handle(m) {
    return {
      node: { kind: 'element', open: '<strong>', close: '</strong>', content: m[2] ?? '' },
      start: m.index,
      end: m.index + m[0].length,
    };
  },
};

/** Python-Markdown's `dequote`. */
function dequote(s: string): string {
  if (s.length >= 2 && ((s[0] === '"' && s.endsWith('"')) || (s[0] === "'" && s.endsWith("'")))) {
    return s.slice(1, -1);
  }
  return s;
}

/** `LinkInlineProcessor.getText`: the bracket-balanced text after `[`. */
function getText(data: string, index: number): [text: string, index: number, handled: boolean] {
  let depth = 1;
  let text = '';
  for (let pos = index; pos < data.length; pos++) {
    const c = data[pos]!;
    if (c === ']') depth--;
    else if (c === '[') depth++;
    index++;
    if (depth === 0) break;
    text += c;
  }
  return [text, index, depth === 0];
}

const RE_LINK = /\(\s*(?:(<[^<>]*>)\s*(?:('[^']*'|"[^"]*")\s*)?\))?/y;

/**
 * `LinkInlineProcessor.getLink`: parse `(href "title")` at `index`, balancing parentheses and
 * tolerating unterminated titles exactly like Python-Markdown does.
 */
function getLink(
  data: string,
  index: number,
  ctx: InlineContext,
): [href: string, title: string | null, index: number, handled: boolean] {
  let href = '';
  let title: string | null = null;
  let handled = false;
  RE_LINK.lastIndex = index;
  const m = RE_LINK.exec(data);
  if (m && m[1]) {
    href = m[1].slice(1, -1).trim();
    if (m[2]) title = m[2].slice(1, -1);
    index = m.index + m[0].length;
    handled = true;
  } else if (m) {
    let bracketCount = 1;
    let backtrackCount = 1;
    const startIndex = m.index + m[0].length;
    index = startIndex;
    let lastBracket = -1;
    let quote = '';
    let startQuote = -1;
    let exitQuote = -1;
    let ignoreMatches = false;
    let altQuote = '';
    let startAltQuote = -1;
    let exitAltQuote = -1;
    let last = '';
    for (let pos = index; pos < data.length; pos++) {
      const c = data[pos]!;
      if (c === '(') {
        if (!ignoreMatches) bracketCount++;
        else if (backtrackCount > 0) backtrackCount--;
      } else if (c === ')') {
        if ((exitQuote !== -1 && quote === last) || (exitAltQuote !== -1 && altQuote === last)) {
          bracketCount = 0;
        } else if (!ignoreMatches) {
          bracketCount--;
        } else if (backtrackCount > 0) {
          backtrackCount--;
          if (backtrackCount === 0) lastBracket = index + 1;
        }
      } else if (c === "'" || c === '"') {
        if (!quote) {
          ignoreMatches = true;
          backtrackCount = bracketCount;
          bracketCount = 1;
          startQuote = index + 1;
          quote = c;
        } else if (c !== quote && !altQuote) {
          startAltQuote = index + 1;
          altQuote = c;
        } else if (c === quote) {
          exitQuote = index + 1;
        } else if (altQuote && c === altQuote) {
          exitAltQuote = index + 1;
        }
      }
      index++;
      if (bracketCount === 0) {
        if (exitQuote >= 0 && quote === last) {
          href = data.slice(startIndex, startQuote - 1);
          title = data.slice(startQuote, exitQuote - 1);
        } else if (exitAltQuote >= 0 && altQuote === last) {
          href = data.slice(startIndex, startAltQuote - 1);
          title = data.slice(startAltQuote, exitAltQuote - 1);
        } else {
          href = data.slice(startIndex, index - 1);
        }
        break;
      }
      if (c !== ' ') last = c;
    }
    if (bracketCount !== 0 && backtrackCount === 0) {
      href = data.slice(startIndex, lastBracket - 1);
      index = lastBracket;
      bracketCount = 0;
    }
    handled = bracketCount === 0;
  }
  if (title !== null) title = dequote(ctx.unescape(title.trim())).replace(/\s/g, ' ');
  href = ctx.unescape(href).trim();
  return [href, title, index, handled];
}

/**
 * `[text](url "title")`. Zulip: the URL goes through `sanitizeUrl` (a rejected URL leaves the
 * source as text), empty text shows the URL, and the text is not parsed for further Markdown.
 * `![alt](src)` is not an image (nor a link): Zulip has no inline image syntax.
 */
const link: InlinePattern = {
  name: 'link',
  priority: 60,
  regex: /(?<!!)\[/g,
  // Rescan hint (inline-engine.ts `resume`): with no `[` before a link, no earlier link can
  // start, so the rescan resumes at it; otherwise from the start, as Python-Markdown does
  // (getText/getLink read past their match, so a replacement can change an earlier decline).
  resume: { isBlocker: (data, i) => data.charCodeAt(i) === 0x5b, back: 'restart', openers: '[' },
  handle(m, data, ctx): InlineMatch | null {
    const [text, textEnd, textOk] = getText(data, m.index + m[0].length);
    if (!textOk) return null;
    const [rawHref, title, end, linkOk] = getLink(data, textEnd, ctx);
    if (!linkOk) return null;
    const sanitized = sanitizeUrl(ctx.unescape(rawHref.trim()));
    if (sanitized === null) return null;
    const href = rewriteLocalLink(sanitized, ctx.env.realmUrl);
    const titleAttr = title !== null ? ` title="${escapeAttr(title)}"` : '';
    return {
      node: {
        kind: 'element',
        open: `<a href="${escapeAttr(href)}"${titleAttr}>`,
        close: '</a>',
        content: text.trim() ? text : href,
        atomic: true,
      },
      start: m.index,
      end,
    };
  },
};

/** Bare URLs and email addresses (`AutoLink` + `url_to_a`). */
const autolink: InlinePattern = {
  name: 'autolink',
  priority: 55,
  regex: buildWebLinkRegex(),
  legacy: true,
  global: true,
  handle(m, _data, ctx) {
    const url = m.groups?.['url'] ?? m[0];
    const start = m.index;
    const end = m.index + m[0].length;
    const sanitized = sanitizeUrl(url);
    if (sanitized === null) return { node: url, start, end };
    const href = rewriteLocalLink(sanitized, ctx.env.realmUrl);
    return {
      node: { kind: 'html', html: `<a href="${escapeAttr(href)}">${escapeText(url)}</a>`, text: url },
      start,
      end,
    };
  },
};

/** HTML entities pass through verbatim (and are protected from later patterns). */
const entity: InlinePattern = {
  name: 'entity',
  priority: 40,
  global: true,
  regex: /(&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);)/g,
  handle(m) {
    const raw = m[1] ?? m[0];
    return { node: { kind: 'html', html: raw, text: raw }, start: m.index, end: m.index + m[0].length };
  },
};

/** Stand-alone `*`, `**`, `_`... surrounded by whitespace stay literal. */
const notStrong: InlinePattern = {
  name: 'not_strong',
  priority: 20,
  global: true,
  regex: /((^|(?<=\s))(\*{1,3}|_{1,3})(?=\s|$))/g,
  handle(m) {
    return { node: m[1] ?? m[0], start: m.index, end: m.index + m[0].length };
  },
};

/** nl2br: every newline inside a paragraph is a line break (Python-Markdown prettifies to `<br>\n`). */
const nl2br: InlinePattern = {
  name: 'nl2br',
  priority: 5,
  global: true,
  regex: /\n/g,
  handle(m) {
    return { node: { kind: 'html', html: '<br>\n', text: '\n' }, start: m.index, end: m.index + 1 };
  },
};

/** The inline patterns every Zulip message gets. */
export const BASIC_INLINE_PATTERNS: readonly InlinePattern[] = [
  backtickPattern,
  strongEmPattern,
  link,
  autolink,
  entity,
  strong,
  emphasisPattern,
  delPattern,
  notStrong,
  nl2br,
];
