/**
 * The work budget of one render: parley's stand-in for Zulip's Markdown timeout
 * (zerver/lib/markdown/__init__.py `do_convert`: `unsafe_timeout(5, ...)`, and the
 * "Rendered content exceeds MAX_MESSAGE_LENGTH * 100 characters" check; both raise
 * `MarkdownRenderingError`, which sending turns into "Unable to render message").
 *
 * A wall-clock timeout cannot interrupt synchronous JavaScript, so rendering counts work instead:
 * every pass of an inline pattern and every block parse charges the number of characters it
 * scans (UTF-16 code units). Every stage is linear, so a render costs a small constant times its
 * input; the limit is far above that constant and only stops a render that would otherwise
 * monopolize the realm's actor. The count is deterministic (the same message always renders or
 * always fails), and tests use it as an operation counter.
 */

/** Thrown (inside the renderer only) when a render exceeds its budget; callers turn it into an error value. */
export class MarkdownRenderingError extends Error {
  constructor(message = 'Markdown rendering exceeded its work budget') {
    super(message);
    this.name = 'MarkdownRenderingError';
  }
}

/** Work counter of one render: characters scanned so far, and the limit (`Infinity` = none). */
export interface RenderWork {
  used: number;
  limit: number;
}

/**
 * Work allowed per input character. The hostile inputs of bench/render-adversarial.ts cost at
 * most ~250 per character at max_message_length (most under 100); only inputs that force
 * Python-Markdown's rescan-from-the-start loop (e.g. a stray `[` before thousands of links) go past.
 */
export const RENDER_WORK_PER_CHAR = 400;
/** Work allowed whatever the input length (short messages with many nested constructs). */
export const RENDER_WORK_BASE = 1_000_000;
/** Work charged for one KaTeX render (not a character scan: about as costly as scanning this many). */
export const TEX_RENDER_WORK = 2000;

/** Zulip's cap on the rendered HTML: `MAX_MESSAGE_LENGTH * 100` characters. */
export const MAX_RENDERED_LENGTH = 10_000 * 100;

/** The budget for rendering `inputLength` characters of message content. */
export function messageRenderWork(inputLength: number): RenderWork {
  return { used: 0, limit: RENDER_WORK_BASE + RENDER_WORK_PER_CHAR * inputLength };
}

/** Charges `amount` units of work; throws {@link MarkdownRenderingError} past the limit. */
export function chargeWork(work: RenderWork | undefined, amount: number): void {
  if (work === undefined) return;
  work.used += amount;
  if (work.used > work.limit) throw new MarkdownRenderingError();
}
