/**
 * `content_html_diff` of `GET /messages/{id}/history` (https://zulip.com/api/get-message-history; Zulip's
 * `highlight_html_differences`): a word-level diff of two rendered messages, wrapped in a `<div>`,
 * inserted runs as `<span class="highlight_text_inserted">` and deleted runs as
 * `<span class="highlight_text_deleted">`.
 *
 * Zulip uses lxml's `htmldiff`; parley uses `@ali-tas/htmldiff-js` (HtmlDiff.NET's algorithm) and
 * maps its markup to lxml's conventions: a replaced run is emitted inserted-first, separated by a
 * space (`<ins>after</ins> <del>before</del>`); a run's leading `&nbsp;` (the library's word
 * separator) becomes a plain space before the span; formatting-only changes (`ins.mod`) are not
 * highlighted. Known difference: lxml's exact whitespace handling around tags.
 */
import { Diff } from '@ali-tas/htmldiff-js';

const INSERTED = '<span class="highlight_text_inserted">';
const DELETED = '<span class="highlight_text_deleted">';

/** The diff of `before` → `after` (both rendered HTML) in Zulip's markup. */
export function highlightHtmlDifferences(before: string, after: string): string {
  let html = Diff.execute(before, after);
  // Formatting-only changes: keep the new markup, no highlight.
  html = html.replace(/<ins class="mod">([\s\S]*?)<\/ins>/g, '$1');
  // Replacements: deleted run then inserted run → inserted first, as lxml does.
  html = html.replace(/<del class="diffmod">([\s\S]*?)<\/del><ins class="diffmod">([\s\S]*?)<\/ins>/g, (_m, del: string, ins: string) => {
    return `<ins>${ins}</ins> <del>${del}</del>`;
  });
  html = html.replace(/<(ins|del)(?: class="[^"]*")?>(?:&nbsp;| )([\s\S]*?)<\/\1>/g, ' <$1>$2</$1>');
  html = html.replace(/<ins(?: class="[^"]*")?>/g, INSERTED).replace(/<del(?: class="[^"]*")?>/g, DELETED);
  html = html.replace(/<\/(ins|del)>/g, '</span>');
  return `<div>${html}</div>`;
}
