/**
 * Realm linkifiers in message text, Zulip's `LinkifierPattern`s (inline priority 45, one
 * pattern per linkifier, in the realm's order; zerver/lib/markdown/__init__.py): a match becomes
 * `<a href="<expanded url_template>">matched text</a>` (the URL through `sanitize_url` and made
 * relative when it points into the realm, like every link; no `title`, as in Zulip).
 *
 * Matching is `applyLinkifiers` (domain/linkifiers.ts: RE2, Zulip's word-boundary wrapper,
 * RFC 6570 expansion) on the inline text as it stands at priority 45, i.e. after code spans,
 * mentions, TeX, channel links, timestamps, links and bare URLs have been replaced by
 * placeholders: those are never linkified (a match touching a placeholder is skipped). As in
 * Python-Markdown, each replacement restarts the scan; linkifier i+1 only runs where linkifier
 * i (and earlier ones) found nothing left to link.
 */
import type { MarkdownPlugin } from '../render.js';
import { escapeAttr, ETX, STX, type InlineMatch, type InlinePattern } from './inline-engine.js';
import { rewriteLocalLink, sanitizeUrl } from './url.js';
import { applyLinkifiers } from '../../domain/linkifiers.js';

/** `[start, end)` spans of the inline placeholders in `data`. */
function placeholderSpans(data: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = data.indexOf(STX); i >= 0; i = data.indexOf(STX, i + 1)) {
    const end = data.indexOf(ETX, i);
    if (end < 0) break;
    spans.push([i, end + 1]);
  }
  return spans;
}

const linkifiers: InlinePattern = {
  name: 'linkifiers',
  priority: 45,
  legacy: true,
  regex: /^/g,
  handle(_m, data, ctx): InlineMatch | null {
    const list = ctx.env.zulip?.linkifiers;
    if (list === undefined || list.length === 0 || data.length === 0) return null;
    const spans = data.includes(STX) ? placeholderSpans(data) : [];
    for (const linkifier of list) {
      for (const found of applyLinkifiers(data, [linkifier])) {
        if (spans.some(([s, e]) => found.start < e && s < found.end)) continue;
        const sanitized = sanitizeUrl(found.url);
        if (sanitized === null) continue;
        const href = rewriteLocalLink(sanitized, ctx.env.realmUrl);
        return {
          node: { kind: 'element', open: `<a href="${escapeAttr(href)}">`, close: '</a>', content: found.text, atomic: true },
          start: found.start,
          end: found.end,
        };
      }
    }
    return null;
  },
};

/** The realm's linkifiers (`env.zulip.linkifiers`). */
export const linkifiersPlugin: MarkdownPlugin = {
  name: 'linkifiers',
  inlinePatterns: [linkifiers],
};
