/**
 * Realm linkifiers in message text, Zulip's `LinkifierPattern`s (inline priority 45, one
 * pattern per linkifier, in the realm's order; zerver/lib/markdown/__init__.py): a match becomes
 * `<a href="<expanded url_template>">matched text</a>` (the URL through `sanitize_url` and made
 * relative when it points into the realm, like every link; no `title`, as in Zulip).
 *
 * Matching is `applyLinkifiers` (domain/linkifiers.ts: RE2, Zulip's word-boundary wrapper,
 * RFC 6570 expansion) on the inline text as it stands at priority 45, i.e. after code spans,
 * mentions, TeX, channel links, timestamps, links and bare URLs have been replaced by
 * placeholders: those are never linkified (a match touching a placeholder is skipped).
 * Linkifier i+1 only runs where linkifier i (and earlier ones) found nothing left to link.
 */
import type { MarkdownPlugin } from '../render.js';
import { escapeAttr, ETX, STX, type InlinePattern } from './inline-engine.js';
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

/**
 * Python-Markdown replaces one match at a time and rescans: the first linkifier (in order) with
 * a usable match links its first one, then everything starts over. A replacement never changes
 * another match of the same linkifier (each match's separators lie outside the match proper,
 * and a placeholder only adds matches inside itself, which are skipped), so replacing all of
 * linkifier 1's usable matches in one pass, then linkifier 2's on the result, and so on, gives
 * the same text and the same placeholder order in linear time.
 */
const linkifiers: InlinePattern = {
  name: 'linkifiers',
  priority: 45,
  replaceAll(data, ctx, stash) {
    const list = ctx.env.zulip?.linkifiers;
    if (list === undefined) return data;
    for (const linkifier of list) {
      if (data.length === 0) break;
      const spans = data.includes(STX) ? placeholderSpans(data) : [];
      let span = 0;
      let out = '';
      let copied = 0;
      for (const found of applyLinkifiers(data, [linkifier])) {
        // Both lists are sorted: skip the spans ending before this match, then test the next one.
        while (span < spans.length && spans[span]![1] <= found.start) span++;
        const next = spans[span];
        if (next !== undefined && next[0] < found.end) continue;
        const sanitized = sanitizeUrl(found.url);
        if (sanitized === null) continue;
        const href = rewriteLocalLink(sanitized, ctx.env.realmUrl);
        out += data.slice(copied, found.start);
        out += stash({ kind: 'element', open: `<a href="${escapeAttr(href)}">`, close: '</a>', content: found.text, atomic: true });
        copied = found.end;
      }
      if (copied !== 0) data = out + data.slice(copied);
    }
    return data;
  },
};

/** The realm's linkifiers (`env.zulip.linkifiers`). */
export const linkifiersPlugin: MarkdownPlugin = {
  name: 'linkifiers',
  inlinePatterns: [linkifiers],
};
