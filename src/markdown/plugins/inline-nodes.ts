/**
 * The inline engine's vocabulary (Python-Markdown's `InlineProcessor` and serializer, see
 * `inline-engine.ts`): the placeholder markers, the stashed nodes, the pattern interface pattern
 * plugins implement, the per-render environment, and the serializer's escaping rules.
 */
import type { RenderWork } from '../render-budget.js';

/** Start-of-text marker opening every placeholder (stripped from user input beforehand). */
export const STX = '\x02';
/** End-of-text marker closing every placeholder (stripped from user input beforehand). */
export const ETX = '\x03';

/** An inline placeholder; group 1 is its stash index. */
export const INLINE_PLACEHOLDER_RE = /\x02klzzwxh:(\d+)\x03/g;
/** A block placeholder; group 1 is its `htmlStash` index. */
export const BLOCK_PLACEHOLDER_RE = /\x02wzxhzdk:(\d+)\x03/g;

/** Placeholder for the block-level HTML stash (Python-Markdown's `htmlStash`). */
export function blockPlaceholder(index: number): string {
  return `${STX}wzxhzdk:${index}${ETX}`;
}

/** An entry of the per-render raw HTML stash (fenced code blocks, later TeX, spoilers...). */
export interface StashedHtml {
  html: string;
  /** Block-level HTML replaces a paragraph that consists of only its placeholder. */
  block: boolean;
}

/** Per-render state shared by preprocessors, block rules and inline patterns. */
export interface RenderEnv {
  /** Raw HTML stash, indexed by block placeholder number. */
  htmlStash: StashedHtml[];
  /** Realm base URL (e.g. `https://chat.example.com`), for relative local links. */
  realmUrl?: string;
  /** Realm data for Zulip-specific syntax (mentions, channel links, linkifiers, emoji); see `../context.ts`. */
  zulip?: import('../context.js').ZulipRenderContext;
  /** Work counter and limit of this render (see `../render-budget.ts`); absent = unlimited. */
  work?: RenderWork;
  [key: string | symbol]: unknown;
}

/**
 * What a pattern produces:
 * - `html`: finished HTML (already escaped); `text` is its plain-text content.
 * - `element`: `open` + processed `content` + `close`. Unless `atomic`, `content` is run through
 *   the patterns after the one that matched (Python: child text with `patternIndex + 1`).
 * - a string: literal text, escaped on output and never processed further.
 */
export type InlineNode =
  | { kind: 'html'; html: string; text: string }
  | { kind: 'element'; open: string; close: string; content: string; atomic?: boolean }
  | string;

/** A successful match: replace `data.slice(start, end)` with `node`. */
export interface InlineMatch {
  node: InlineNode;
  start: number;
  end: number;
}

/** What pattern handlers can use besides the match. */
export interface InlineContext {
  env: RenderEnv;
  /** Python-Markdown's `unescape`: replace placeholders by their nodes' plain text. */
  unescape(text: string): string;
}

/**
 * One inline syntax. `regex` must carry the `g` flag (it is driven through `lastIndex`).
 * `handle` returns null to decline a match: the scan then continues after it, or, for
 * `legacy` patterns (Python-Markdown's old-style `Pattern`), the pattern gives up on this text.
 * A pattern with `replaceAll` does its own linear pass instead (and has no `regex`/`handle` use).
 */
export interface InlinePattern {
  name: string;
  /** Zulip's registry priority; higher runs first. */
  priority: number;
  regex?: RegExp;
  legacy?: boolean;
  /**
   * Performance hint: the pattern's matches never depend on replacements of its own earlier
   * matches (no match can include or be enabled by a placeholder it produced), so all matches
   * may be replaced in one left-to-right pass instead of Python-Markdown's rescan-from-start
   * after each match, which is quadratic in the number of matches.
   */
  global?: boolean;
  handle?(m: RegExpExecArray, data: string, ctx: InlineContext): InlineMatch | null;
  /**
   * Lets the rescan after a replacement start near it instead of at 0 (Python-Markdown rescans
   * from 0: quadratic in the number of matches). Sound for a pattern whose every match opens with
   * a blocker character at most `back` characters after its start, has no blocker between that
   * one and its closing, closes with a blocker, and is judged by `handle` from the match alone
   * (mentions and channel links: `*`; TeX: `$` or newline). Then a new match can only begin at most
   * `back` characters before the last blocker preceding the placeholder (it must span the
   * placeholder; with no blocker before it, none can), and every decline before that point
   * happens again identically; the rescan starts at the larger of that point and where the
   * successful search started. `back: 'restart'` (links, whose handler reads past the match):
   * only a match with no blocker (`[`) before it resumes at itself; otherwise the rescan starts at 0.
   */
  resume?: {
    isBlocker(data: string, index: number): boolean;
    back: number | 'restart';
    /**
     * Characters a match starts with, when a match's last character and a placeholder's last
     * character are alike to the regex's lookbehind: then matches are replaced without rebuilding
     * the text per match (see `applyDeferred`), while no earlier match can be completed.
     */
    openers?: string;
    /**
     * For a regex whose lookbehind tells a match's last character from a placeholder's: the
     * regex without that lookbehind, sticky (`y`), tried first right after a deferred replacement.
     */
    afterPlaceholder?: RegExp;
  };
  /**
   * Replaces every match in one left-to-right pass of the pattern's own, with exactly the result
   * of Python-Markdown's replace-then-rescan-from-the-start loop (which is quadratic in the
   * number of matches) — for syntaxes whose matches can nest or whose regex backtracks. Calls
   * `stash(node)` once per match, in the order that loop would replace them (placeholder
   * numbers then agree), and returns the text with the placeholders `stash` returned.
   */
  replaceAll?(data: string, ctx: InlineContext, stash: (node: InlineNode) => string): string;
}

/** An `&` that does not start an entity (Python-Markdown's serializer leaves those alone). */
export const AMP_NOT_ENTITY = /&(?!(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);)/gi;

/**
 * Escape text like Python-Markdown's HTML serializer: `<`, `>`, and `&` unless it already
 * starts an entity (so `&amp;` and `&nbsp;` pass through unchanged). Quotes are left alone.
 */
export function escapeText(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return text.replace(AMP_NOT_ENTITY, '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Attribute-value escaping (serializer's `_escape_attrib_html`): as text, plus `"`. */
export function escapeAttr(value: string): string {
  return escapeText(value).replaceAll('"', '&quot;');
}

/** Escaping for code (Python-Markdown's `code_escape`): every `&`, `<`, `>`. */
export function escapeCode(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
