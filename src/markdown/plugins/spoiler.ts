/**
 * Spoiler blocks, Zulip's `SpoilerHandler` / `format_spoiler` (zerver/lib/markdown/fenced_code.py):
 *
 *     ```spoiler Header *Markdown*
 *     hidden content (Markdown, may hold nested fences)
 *     ```
 *
 * becomes
 *
 *     <div class="spoiler-block"><div class="spoiler-header">
 *     <p>Header <em>Markdown</em></p>
 *     </div><div class="spoiler-content" aria-hidden="true">
 *     <p>hidden content ...</p>
 *     </div></div>
 *
 * The three `<div>` fragments are stashed block HTML, each its own paragraph, so the header and
 * the content between them are rendered as ordinary Markdown blocks (as in Zulip).
 */
import type { MarkdownPlugin } from '../render.js';
import type { FenceHandler } from './preprocess.js';

const HEADER_OPEN = '<div class="spoiler-block"><div class="spoiler-header">';
const CONTENT_OPEN = '</div><div class="spoiler-content" aria-hidden="true">';
const FOOTER = '</div></div>';

/** ```spoiler [header]: content processed as Markdown between stashed `<div>` fragments. */
export const SPOILER_FENCE: FenceHandler = {
  processContents: true,
  format(text, info, ctx) {
    const out = [ctx.stash(HEADER_OPEN, true)];
    if (info.header !== null) out.push(info.header);
    out.push(ctx.stash(CONTENT_OPEN, true), text, ctx.stash(FOOTER, true));
    return out.join('\n\n');
  },
};

/** ```spoiler blocks. */
export const spoilerPlugin: MarkdownPlugin = {
  name: 'spoiler',
  fenceHandlers: { spoiler: SPOILER_FENCE },
};
