/**
 * Emoji in messages, as Zulip's backend renders them (zerver/lib/markdown/__init__.py `Emoji`,
 * `UnicodeEmoji`, `make_emoji`, `make_realm_emoji`; inline priorities 15 and 0):
 *
 *   15 `:name:`            realm emoji (`env.zulip.realmEmoji`, active only) → `<img class="emoji">`;
 *                          `:zulip:` → the static Zulip logo image; a Unicode emoji name or alias →
 *                          `<span class="emoji emoji-<codepoint>">`; anything else stays text
 *    0 Unicode characters  an emoji character (or ZWJ/keycap/modifier/tag sequence, UTS #51's
 *                          EBNF as in Zulip's `POSSIBLE_EMOJI_RE`) whose codepoint Zulip knows →
 *                          the same span, with the canonical name as text (`💩` → `:poop:`)
 *
 * Markup (attributes in the serializer's alphabetical order):
 *   `<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span>`
 *   `<img alt=":name:" class="emoji" src="<source_url>" title="name">`
 * Titles are the name with `_` → space. `:name:` needs `env.zulip` only for realm emoji; Unicode
 * names render without realm data, like Zulip's `markdown_convert` without a realm.
 */
import type { MarkdownPlugin } from '../render.js';
import { escapeAttr, escapeText, type InlineNode, type InlinePattern } from './inline-engine.js';
import { unicodeEmojiCodeByName, unicodeEmojiNameByCode } from '../../domain/emoji.js';

/** Zulip's static URL for the `:zulip:` emoji (deliberately not a staticfiles URL). */
export const ZULIP_EMOJI_URL = '/static/generated/emoji/images/emoji/unicode/zulip.png';

/** `make_emoji`: the span for a Unicode emoji codepoint, `display` = `:name:`. */
export function unicodeEmojiNode(codepoint: string, display: string): InlineNode {
  const title = escapeAttr(display.slice(1, -1).replaceAll('_', ' '));
  return {
    kind: 'html',
    html: `<span aria-label="${title}" class="emoji emoji-${escapeAttr(codepoint)}" role="img" title="${title}">${escapeText(display)}</span>`,
    text: display,
  };
}

/** `make_realm_emoji`: the image for a realm emoji (or `:zulip:`), `display` = `:name:`. */
export function imageEmojiNode(src: string, display: string): InlineNode {
  const title = escapeAttr(display.slice(1, -1).replaceAll('_', ' '));
  return {
    kind: 'html',
    html: `<img alt="${escapeAttr(display)}" class="emoji" src="${escapeAttr(src)}" title="${title}">`,
    text: display,
  };
}

/** `:name:` (Zulip's `EMOJI_REGEX`, Python's Unicode `\w`). */
const emojiName: InlinePattern = {
  name: 'emoji',
  priority: 15,
  legacy: true,
  global: true,
  regex: /:[\p{L}\p{N}_\-+]+:/gu,
  handle(m, _data, ctx) {
    const syntax = m[0];
    const name = syntax.slice(1, -1);
    const start = m.index;
    const end = start + syntax.length;
    const realm = ctx.env.zulip?.realmEmoji(name);
    if (realm !== undefined && !realm.deactivated) return { node: imageEmojiNode(realm.sourceUrl, syntax), start, end };
    if (name === 'zulip') return { node: imageEmojiNode(ZULIP_EMOJI_URL, syntax), start, end };
    const code = unicodeEmojiCodeByName(name);
    // Not an emoji: the text stays, protected from later patterns (Zulip returns the string).
    return { node: code === undefined ? syntax : unicodeEmojiNode(code, syntax), start, end };
  },
};

/** One emoji element of UTS #51's EBNF: base, then a modifier, VS16 (+keycap) or a tag sequence. */
const ELEMENT = String.raw`\p{Emoji}(?:\p{Emoji_Modifier}|\u{FE0F}\u{20E3}?|[\u{E0020}-\u{E007E}]+\u{E007F})?`;
const RI_PAIR = String.raw`\p{Regional_Indicator}\p{Regional_Indicator}`;
/** Zulip's `POSSIBLE_EMOJI_RE`. */
const POSSIBLE_EMOJI_RE = new RegExp(`(?:${RI_PAIR}|${ELEMENT})(?:\\u{200D}(?:${RI_PAIR}|${ELEMENT}))*`, 'gu');
/** Zulip's `TEXT_PRESENTATION_RE` (fullmatch): characters that are text unless qualified. */
const TEXT_PRESENTATION_RE = /^\P{Emoji_Presentation}\u{20E3}?$/u;

/** `emoji_to_hex_codepoint(unqualify_emoji(s))`: `-`-joined 4+-digit hex, VS16 dropped. */
export function emojiToHexCodepoint(s: string): string {
  const parts: string[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp !== 0xfe0f) parts.push(cp.toString(16).padStart(4, '0'));
  }
  return parts.join('-');
}

/** Unicode emoji characters (`UnicodeEmoji`, a new-style processor: unknown ones are skipped). */
const unicodeEmoji: InlinePattern = {
  name: 'unicodeemoji',
  priority: 0,
  global: true,
  regex: POSSIBLE_EMOJI_RE,
  handle(m) {
    const syntax = m[0];
    if (TEXT_PRESENTATION_RE.test(syntax)) return null;
    const codepoint = emojiToHexCodepoint(syntax);
    const name = unicodeEmojiNameByCode(codepoint);
    if (name === undefined) return null;
    return { node: unicodeEmojiNode(codepoint, `:${name}:`), start: m.index, end: m.index + syntax.length };
  },
};

/** `:name:` emoji and Unicode emoji characters. */
export const emojiPlugin: MarkdownPlugin = {
  name: 'emoji',
  inlinePatterns: [emojiName, unicodeEmoji],
};
