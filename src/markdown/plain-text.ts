/**
 * A fast path for message content that can only render as one plain paragraph (issue 17: most
 * chat messages are plain sentences, and the full pipeline — preprocessors, markdown-it's block
 * parser, every inline pattern, previews — cost ~9% of the server's thread per send).
 *
 * {@link renderPlainText} answers only for content it can PROVE the full renderer
 * (`zulip-renderer.ts`) turns into `<p>…</p>` with nothing but escaping and line breaks, and then
 * returns exactly that HTML; for anything else it returns undefined and the caller renders as
 * usual. The test (test/markdown/plain-text.test.ts) compares both on random strings made of the
 * allowed characters and every near miss.
 *
 * What qualifies — a whitelist of characters, each with the positions where it means nothing
 * (Zulip's syntax: zerver/lib/markdown/__init__.py `build_inlinepatterns`, `build_block_parser`,
 * `build_preprocessors`; zerver/lib/emoji.py for emoticons):
 * - letters `A-Za-z`, and non-ASCII code points of Unicode category L that are not `\p{Emoji}`
 *   (`UnicodeEmoji` turns emoji characters into spans; the only letter that is an emoji, ℹ, is
 *   excluded with them); digits `0-9`, except a line starting with digits then `.` or `)`
 *   (an ordered list item, `MarkdownListPreprocessor` / markdown-it's list rule);
 * - single spaces between other characters: no space at a line's start (4 spaces make a code
 *   block, fewer are stripped) or end (Python-Markdown keeps trailing spaces in the paragraph,
 *   two make a hard break in CommonMark) and no two in a row (tabs and other whitespace, which
 *   `NormalizeWhitespace` rewrites, never qualify);
 * - newlines between non-empty lines (`nl2br`: `<br>\n`; a blank line would start a new paragraph);
 * - `,` `!` `?` `'` `"` `(` `/` `%` anywhere: no Zulip pattern starts with them once `[`, `:`,
 *   `;` and `<` are ruled out below (`![`, `(:`/`;)` emoticons, `/me` renders as plain text);
 *   `)` anywhere but after a line's leading digits;
 * - `.` only before a space, a newline, another `.` or the end: a `.` followed by anything else
 *   may be a bare domain or URL (`get_web_link_regex`: `example.com` is auto-linked);
 * - `:` and `;` only before a space, a newline or the end, and not at a line's start nor after a
 *   space or `(`: that rules out `:emoji:` (`Emoji`), every emoticon (`:)`, `(:`, `;)`, `:/`…
 *   `EMOTICON_RE`, only active with the sender's `translate_emoticons`, but excluded whoever
 *   sends), `http://`, `bitcoin:` addresses, and (with the `&` rule) the `;` ending an entity;
 * - `&` only before a space (so it never starts an entity `&name;`, which Python-Markdown's
 *   serializer passes through): it renders `&amp;`;
 * - `-` and `>` anywhere but at a line's start (list item / thematic break, block quote); `>`
 *   renders `&gt;`.
 * Everything else falls back, in particular `*` `_` `~` `` ` `` `$` `|` `#` `@` `[` `]` `{` `}`
 * `\` `^` `+` `=` `<` (emphasis, strikethrough, code, TeX, spoilers/tables, headings/channel
 * links/linkifiers, mentions, links, escapes, lists, setext-like lines, `<time:…>` and the `<3`
 * emoticon), tabs, `\r`, control and format characters, and blank content.
 *
 * Realm linkifiers (priority 45) see exactly this content as their text (no earlier pattern can
 * match it), so the same matcher `applyLinkifiers` (domain/linkifiers.ts) decides: any match
 * falls back. Alert words set flags from the raw content, not the HTML (realm/personal-flags.ts),
 * so they are unaffected. Such content has no mentions, wildcards or group mentions (all need
 * `@`), so its findings are empty. The work budget (render-budget.ts) is never approached: the
 * full renderer charges about 25 units per character of plain text, against 400 allowed. The
 * caller keeps the `MAX_RENDERED_LENGTH` check (the output is at most 5 characters per input one).
 */
import { applyLinkifiers, type Linkifier } from '../domain/linkifiers.js';

const LETTER = /^\p{L}$/u;
const EMOJI = /^\p{Emoji}$/u;

const isAsciiLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** A space, newline or the end of the text (`NaN` from `charCodeAt` past the end). */
const isBreakOrEnd = (c: number): boolean => c === 0x20 || c === 0x0a || Number.isNaN(c);

/**
 * The HTML the full message renderer gives `content` (`<p>…</p>`, `&`/`>` escaped, newlines as
 * `<br>\n`), when the content qualifies as plain text (see the module header) and no linkifier
 * of the realm (`linkifiers`, in order) matches it; otherwise undefined (render it fully).
 * Pure and linear in `content.length` (plus the linkifiers' RE2 scans when there are any).
 */
export function renderPlainText(content: string, linkifiers: readonly Linkifier[]): string | undefined {
  const n = content.length;
  if (n === 0) return undefined;
  let escape = false;
  let lineStart = true;
  // Inside the digits a line starts with (a `.` or `)` right after them is a list marker).
  let leadingDigits = false;
  for (let i = 0; i < n; i++) {
    const c = content.charCodeAt(i);
    const prev = i > 0 ? content.charCodeAt(i - 1) : NaN;
    const atLineStart = lineStart;
    lineStart = false;
    if (isAsciiLetter(c)) {
      leadingDigits = false;
      continue;
    }
    if (isDigit(c)) {
      if (atLineStart) leadingDigits = true;
      continue;
    }
    const afterLeadingDigits = leadingDigits;
    leadingDigits = false;
    switch (c) {
      case 0x20: // space: single, inside a line
        if (atLineStart || isBreakOrEnd(content.charCodeAt(i + 1))) return undefined;
        continue;
      case 0x0a: // newline between non-empty lines
        if (atLineStart || i === n - 1) return undefined;
        lineStart = true;
        escape = true;
        continue;
      case 0x2c: // ,
      case 0x21: // !
      case 0x3f: // ?
      case 0x27: // '
      case 0x22: // "
      case 0x28: // (
      case 0x2f: // /
      case 0x25: // %
        continue;
      case 0x29: // )
        if (afterLeadingDigits) return undefined;
        continue;
      case 0x2e: {
        // .
        if (afterLeadingDigits) return undefined;
        const next = content.charCodeAt(i + 1);
        if (!isBreakOrEnd(next) && next !== 0x2e) return undefined;
        continue;
      }
      case 0x3a: // :
      case 0x3b: // ;
        if (atLineStart || prev === 0x20 || prev === 0x28 || !isBreakOrEnd(content.charCodeAt(i + 1))) return undefined;
        continue;
      case 0x26: // &
        if (content.charCodeAt(i + 1) !== 0x20) return undefined;
        escape = true;
        continue;
      case 0x2d: // -
        if (atLineStart) return undefined;
        continue;
      case 0x3e: // >
        if (atLineStart) return undefined;
        escape = true;
        continue;
    }
    if (c < 0x80) return undefined;
    const cp = content.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (!LETTER.test(ch) || EMOJI.test(ch)) return undefined;
    if (cp > 0xffff) i++;
  }
  if (linkifiers.length > 0 && applyLinkifiers(content, linkifiers).length > 0) return undefined;
  const body = escape ? content.replaceAll('&', '&amp;').replaceAll('>', '&gt;').replaceAll('\n', '<br>\n') : content;
  return `<p>${body}</p>`;
}
