/**
 * Emoticon translation (`:)` → 🙂), Zulip's `EmoticonTranslation` (inline priority 10), active
 * only when the sender's `translate_emoticons` setting is on (`env.zulip.translateEmoticons`).
 * The conversions and the boundary rule are Zulip's `EMOTICON_CONVERSIONS` / `EMOTICON_RE`
 * (zerver/lib/emoji.py): an emoticon must stand between start/end of text or one of
 * `,.;?!()[] "'` newline tab. The result is the same span as `:smile:` (see emoji.ts).
 */
import type { MarkdownPlugin } from '../render.js';
import type { InlinePattern } from './inline-engine.js';
import { unicodeEmojiNode } from './emoji.js';
import { unicodeEmojiCodeByName } from '../../domain/emoji.js';

/** Zulip's `EMOTICON_CONVERSIONS` (emoticon → emoji name). */
export const EMOTICON_CONVERSIONS: Readonly<Record<string, string>> = {
  ':)': 'smile',
  '(:': 'smile',
  ':(': 'frown',
  '<3': 'heart',
  ':|': 'neutral',
  ':/': 'confused',
  ';)': 'wink',
  ':D': 'grinning',
  ':o': 'open_mouth',
  ':O': 'open_mouth',
  ':p': 'stuck_out_tongue',
  ':P': 'stuck_out_tongue',
};

const TERMINAL = String.raw`,.;?!()\[\] "'\n\t`;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const EMOTICON_RE = new RegExp(
  `(?<![^${TERMINAL}])(?:${Object.keys(EMOTICON_CONVERSIONS).map(escapeRe).join('|')})(?![^${TERMINAL}])`,
  'g',
);

const translateEmoticons: InlinePattern = {
  name: 'translate_emoticons',
  priority: 10,
  legacy: true,
  global: true,
  regex: EMOTICON_RE,
  handle(m, _data, ctx) {
    if (ctx.env.zulip?.translateEmoticons !== true) return null;
    const name = EMOTICON_CONVERSIONS[m[0]]!;
    const code = unicodeEmojiCodeByName(name);
    if (code === undefined) return null;
    return { node: unicodeEmojiNode(code, `:${name}:`), start: m.index, end: m.index + m[0].length };
  },
};

/** `:)`-style emoticons → emoji, for senders who enabled `translate_emoticons`. */
export const emoticonsPlugin: MarkdownPlugin = {
  name: 'emoticons',
  inlinePatterns: [translateEmoticons],
};
