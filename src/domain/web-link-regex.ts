/**
 * The bare-URL regex of Zulip's Markdown (`get_web_link_regex()` in
 * zerver/lib/markdown/__init__.py). It lives in domain/ because two layers use it: the Markdown
 * autolinker (`markdown/plugins/basic-inline.ts`) and the `topic_links` of message objects
 * (`domain/topic-links.ts`), and domain/ may not import markdown/.
 */
import { AUTOLINK_TLDS } from './autolink-tlds.js';

/** Zulip's `get_web_link_regex()`, with Python's Unicode `\w`. */
export function buildWebLinkRegex(): RegExp {
  const w = String.raw`\p{L}\p{N}_`;
  const inner = String.raw`[^\s()"]*`;
  const parenGroup = String.raw`[^\s()"]*?(?:\(%s\)[^\s()"]*?)*`;
  let nested = parenGroup;
  for (let i = 0; i < 6; i++) nested = nested.replace('%s', parenGroup);
  nested = nested.replace('%s', inner);
  const tlds = [...AUTOLINK_TLDS]
    .sort((a, b) => b.length - a.length)
    .join('|');
  const source =
    String.raw`(?<![^\s'"(,:<])` +
    '(?<url>' +
    String.raw`(?:(?:https?://[${w}.:@\-]+?|(?:(?:[${w}\-]+\.)+(?:${tlds})))(?:/${nested})?)` +
    String.raw`|(?:[${w}.\-]+@[${w}.\-]+\.[${w}]+)` +
    String.raw`|(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34})` +
    ')' +
    String.raw`(?=[!:;?),.'">]*(?:$|\s))`;
  return new RegExp(source, 'gu');
}
