/**
 * Line preprocessors that run before block parsing, ported from Zulip's
 * `ZulipMarkdown.build_preprocessors` (zerver/lib/markdown/__init__.py, fenced_code.py):
 *
 *   35 hanging_lists         a list directly under a text line (or a list of another kind)
 *                            gets a blank line inserted so it becomes its own list
 *   30 normalize_whitespace  CRLF → LF, tabs → 4-column stops, whitespace-only lines emptied,
 *                            placeholder marker characters removed from user input
 *   25 fenced_code_block     ``` / ~~~ fences: code becomes stashed HTML (one placeholder
 *                            line), ```quote becomes `> ` lines; other kinds via FenceHandler
 */
import { escapeCode, ETX, STX, type RenderEnv } from './inline-engine.js';

/** Context handed to preprocessors and fence handlers for one render. */
export interface PreprocessContext {
  env: RenderEnv;
  /** Fence handlers by lowercased language (`quote`, later `spoiler`, `math`...). */
  fenceHandlers: ReadonlyMap<string, FenceHandler>;
  /** Store raw HTML; returns the placeholder to put in the text instead. */
  stash(html: string, block: boolean): string;
}

/** A source-lines transformation with Zulip's preprocessor priority (higher runs first). */
export interface Preprocessor {
  name: string;
  priority: number;
  run(lines: string[], ctx: PreprocessContext): string[];
}

/** The parsed opening line of a fenced block. */
export interface FenceInfo {
  /** The fence itself (e.g. "```" or "~~~~"); the block closes at a line equal to it. */
  fence: string;
  /** Lowercased language, or null. */
  lang: string | null;
  /** Text after the language (spoiler headers), or null. */
  header: string | null;
}

/**
 * How a fenced block of one kind turns into output. With `processContents` the block's lines
 * may hold nested fences and `format` returns Markdown (quotes, spoilers); otherwise the lines
 * are raw and `format` returns HTML, which is stashed as one block-level placeholder.
 */
export interface FenceHandler {
  processContents: boolean;
  /**
   * Without `processContents`: whether the HTML is block-level (Python-Markdown's `isblocklevel`:
   * a paragraph holding only its placeholder is replaced by it) or inline, staying inside `<p>`
   * (TeX's `<span class="katex-display">`). Default true.
   */
  block?: boolean;
  format(text: string, info: FenceInfo, ctx: PreprocessContext): string;
}

/** Zulip's `FENCE_RE` (fences must start at column 0; `+-.` in the class is a range). */
const FENCE_RE = /^(?<fence>~{3,}|`{3,})[ ]*(?:\{?\.?(?<lang>[a-zA-Z0-9_+-./#]+)[ ]*(?<header>[^ ~`][^~`]*)?\}?)?$/;

function matchFence(line: string): FenceInfo | null {
  const m = FENCE_RE.exec(line);
  if (!m?.groups) return null;
  const lang = m.groups['lang'];
  return {
    fence: m.groups['fence']!,
    lang: lang ? lang.toLowerCase() : null,
    header: m.groups['header'] ?? null,
  };
}

const PYGMENTS_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * A code block as Zulip's codehilite emits it (without Pygments token spans: no syntax
 * highlighting here). Leading/trailing blank lines are dropped and one newline is kept at the
 * end. Without a language the text is escaped Pygments-style (quotes too); with one, Zulip
 * re-serializes the HTML through lxml to add `data-code-language`, which leaves quotes bare.
 */
export function codehiliteHtml(text: string, lang: string | null): string {
  const src = text.replace(/^\n+|\n+$/g, '');
  if (lang) {
    const attr = lang.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
    return `<div class="codehilite" data-code-language="${attr}"><pre><span></span><code>${escapeCode(src)}\n</code></pre></div>`;
  }
  const body = src.replace(/[&<>"']/g, (c) => PYGMENTS_ESCAPES[c]!);
  return `<div class="codehilite"><pre><span></span><code>${body}\n</code></pre></div>`;
}

/** Plain code fences (any language without a dedicated handler). */
export const CODE_FENCE: FenceHandler = {
  processContents: false,
  format: (text, info) => codehiliteHtml(text, info.lang),
};

/** ```quote / ```quoted: the content becomes a Markdown blockquote. */
export const QUOTE_FENCE: FenceHandler = {
  processContents: true,
  format: (text) => text.split('\n').map((line) => '> ' + line).join('\n'),
};

interface Frame {
  info: FenceInfo | null;
  handler: FenceHandler | null;
  /** Where this frame's collected lines go (its own buffer; the document for the outer frame). */
  lines: string[];
  /** The parent's buffer, which receives this block's output. */
  out: string[];
}

/**
 * Fences nested deeper than this inside ```quote / ```spoiler blocks stay literal lines. Each
 * level of quote fence prefixes every line inside it with `> ` again, so unbounded nesting makes
 * the text grow with the square of the input (`'```quote\n' × N`); block quotes have the same
 * bound (blocks.ts).
 */
export const MAX_FENCE_DEPTH = 32;

/** Zulip's `FencedBlockPreprocessor.run`, a stack of open fences. */
function runFences(lines: string[], ctx: PreprocessContext): string[] {
  const output: string[] = [];
  const stack: Frame[] = [{ info: null, handler: null, lines: output, out: output }];

  const openOrAppend = (line: string, target: string[]): void => {
    const info = stack.length > MAX_FENCE_DEPTH ? null : matchFence(line);
    if (info === null) {
      target.push(line);
      return;
    }
    const handler = (info.lang !== null ? ctx.fenceHandlers.get(info.lang) : undefined) ?? CODE_FENCE;
    stack.push({ info, handler, lines: [], out: target });
  };

  const done = (): void => {
    const frame = stack.pop()!;
    if (frame.info === null || frame.handler === null || frame.lines.length === 0) return;
    let text = frame.handler.format(frame.lines.join('\n'), frame.info, ctx);
    if (!frame.handler.processContents) text = ctx.stash(text, frame.handler.block ?? true);
    frame.out.push('', ...text.split('\n'), '');
  };

  for (const line of lines) {
    const top = stack[stack.length - 1]!;
    if (top.info === null || top.handler === null) {
      openOrAppend(line, top.lines);
    } else if (line.trimEnd() === top.info.fence) {
      done();
    } else if (top.handler.processContents) {
      openOrAppend(line, top.lines);
    } else {
      top.lines.push(line.trimEnd());
    }
  }
  while (stack.length > 1) done();
  if (output.length > 2 && output[output.length - 2] !== '') output.push('');
  return output;
}

const LI_RE = /^[ ]*([*+-]|\d\.)[ ]+(.*)/;

/** Zulip's `MarkdownListPreprocessor` (lists may hang directly off a paragraph). */
function runHangingLists(lines: string[]): string[] {
  const out: string[] = [];
  const openFences: { fence: string; isCode: boolean }[] = [];
  // How many of `openFences` are code fences (counted, not rescanned: fences may nest deeply).
  let openCodeFences = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    out.push(line);
    const fence = matchFence(line);
    if (fence !== null) {
      const isCode = fence.lang !== 'quote' && fence.lang !== 'quoted';
      const top = openFences[openFences.length - 1];
      if (!fence.lang && top !== undefined && top.fence === fence.fence) {
        if (openFences.pop()!.isCode) openCodeFences--;
      } else {
        openFences.push({ fence: fence.fence, isCode });
        if (isCode) openCodeFences++;
      }
    }
    const inCodeFence = openCodeFences > 0;
    const li1 = LI_RE.exec(line);
    const li2 = LI_RE.exec(lines[i + 1]!);
    if (
      !inCodeFence &&
      line !== '' &&
      ((li2 && !li1) || (li1 && li2 && (li1[1]!.length === 1) !== (li2[1]!.length === 1)))
    ) {
      out.push('');
    }
  }
  if (lines.length > 0) out.push(lines[lines.length - 1]!);
  return out;
}

/** Python's `str.expandtabs(4)`, line by line. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) {
    if (ch === '\t') out += ' '.repeat(4 - (out.length % 4));
    else out += ch;
  }
  return out;
}

const MARKERS_RE = new RegExp(`[${STX}${ETX}]`, 'g');

/** Python-Markdown's `NormalizeWhitespace`. */
function normalizeWhitespace(lines: string[]): string[] {
  let source = lines.join('\n').replace(MARKERS_RE, '');
  source = source.replace(/\r\n?/g, '\n') + '\n\n';
  if (source.includes('\t')) source = source.split('\n').map(expandTabs).join('\n');
  source = source.replace(/(?<=\n) +\n/g, '\n');
  return source.split('\n');
}

/** The preprocessors every Zulip message gets. */
export const BASIC_PREPROCESSORS: readonly Preprocessor[] = [
  { name: 'hanging_lists', priority: 35, run: (lines) => runHangingLists(lines) },
  { name: 'normalize_whitespace', priority: 30, run: (lines) => normalizeWhitespace(lines) },
  { name: 'fenced_code_block', priority: 25, run: runFences },
];
