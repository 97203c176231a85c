/**
 * Block-level rules that make markdown-it split a message into blocks the way Zulip's
 * Python-Markdown `BlockParser` does (zerver/lib/markdown/__init__.py `build_block_parser`):
 *
 * - paragraphs keep trailing spaces (Python only `lstrip`s them);
 * - `#` headings need a space after the hashes and start at the line's first column; trailing
 *   `#`s are dropped even without a space before them; no setext (`===`) headings;
 * - block quotes run to the next blank line (lazy lines included), and a quote made only of
 *   bare `>` lines is not a quote at all (Zulip's `BlockQuoteProcessor.RE`);
 * - lists nest by 2 spaces, `*`/`-`/`+` items form one list, only `1.`-style ordered markers,
 *   and a list interrupts a paragraph only inside another list (top-level "hanging" lists are
 *   handled by the hanging_lists preprocessor, as in Zulip);
 * - code blocks (4-space indent) render as Zulip's codehilite `<div>`;
 * - tables (markdown-it's GFM rule) only where a block starts, never interrupting a paragraph;
 * - reference definitions, raw HTML blocks and fences are off (fences are preprocessed).
 */
import type { MarkdownIt, StateBlock, Token } from 'markdown-it';
import { codehiliteHtml } from './preprocess.js';
import type { RenderEnv } from './inline-engine.js';
import { chargeWork } from '../render-budget.js';

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]!);
}

/** Per parse state: the first line of the list item being tokenized (its marker line). */
const itemFirstLine = new WeakMap<StateBlock, number>();

/**
 * A paragraph's source lines. Python-Markdown appends the lines of a list item's first block
 * to the item verbatim, so a paragraph starting on an item's marker line keeps its
 * continuation lines' indentation (relative to the marker); other lines are dedented.
 */
function paragraphLines(state: StateBlock, startLine: number, endLine: number): string {
  if (itemFirstLine.get(state) !== startLine) return state.getLines(startLine, endLine, state.blkIndent, false);
  const lines = [lineText(state, startLine)];
  const keep = Math.max(state.listIndent, 0);
  for (let line = startLine + 1; line < endLine; line++) {
    lines.push(state.src.slice(state.bMarks[line]! + Math.min(state.tShift[line]!, keep), state.eMarks[line]!));
  }
  return lines.join('\n');
}

/** Python-Markdown `ParagraphProcessor`: the block's text, left-stripped only. */
const paragraph: BlockRule = (state, startLine, endLine) => {
  const terminatorRules = state.md.block.ruler.getRules('paragraph');
  const oldParentType = state.parentType;
  let nextLine = startLine + 1;
  state.parentType = 'paragraph';
  for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
    if (state.sCount[nextLine]! - state.blkIndent > 3) continue;
    if (state.sCount[nextLine]! < 0) continue;
    let terminate = false;
    for (const rule of terminatorRules) {
      if (rule(state, nextLine, endLine, true)) {
        terminate = true;
        break;
      }
    }
    if (terminate) break;
  }
  const content = paragraphLines(state, startLine, nextLine).replace(/^\s+/, '');
  state.line = nextLine;
  const open = state.push('paragraph_open', 'p', 1);
  open.map = [startLine, state.line];
  const inline = state.push('inline', '', 0);
  inline.content = content;
  inline.map = [startLine, state.line];
  inline.children = [];
  state.push('paragraph_close', 'p', -1);
  state.parentType = oldParentType;
  return true;
};

const HASH_HEADER_RE = /^(#{1,6})[ ]/;
const HEADER_TEXT_RE = /^((?:\\[\s\S]|[^\\])*?)#*$/;

/** Zulip's `HashHeaderProcessor`. */
const heading: BlockRule = (state, startLine, _endLine, silent) => {
  if (state.sCount[startLine] !== state.blkIndent) return false;
  const text = lineText(state, startLine);
  const m = HASH_HEADER_RE.exec(text);
  if (!m) return false;
  const body = HEADER_TEXT_RE.exec(text.slice(m[0].length));
  if (!body) return false;
  if (silent) return true;
  const tag = `h${m[1]!.length}`;
  state.line = startLine + 1;
  const open = state.push('heading_open', tag, 1);
  open.markup = m[1]!;
  open.map = [startLine, state.line];
  const inline = state.push('inline', '', 0);
  inline.content = body[1]!.trim();
  inline.map = [startLine, state.line];
  inline.children = [];
  state.push('heading_close', tag, -1).markup = m[1]!;
  return true;
};

/** Nested block quotes deeper than this are left as text (bounds recursion on `>>>>>>...`). */
const MAX_QUOTE_DEPTH = 32;
const QUOTE_DEPTH = Symbol('quoteDepth');

/** Zulip's `BlockQuoteProcessor`: the rest of the block, `>` markers removed, parsed anew. */
const blockquote: BlockRule = (state, startLine, endLine, silent) => {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  if (state.src.charCodeAt(state.bMarks[startLine]! + state.tShift[startLine]!) !== 0x3e) return false;
  const depth = (state.env[QUOTE_DEPTH] as number | undefined) ?? 0;
  if (depth >= MAX_QUOTE_DEPTH) return false;
  let end = startLine + 1;
  while (end < endLine && !state.isEmpty(end) && state.sCount[end]! >= state.blkIndent) end++;
  let hasContent = false;
  for (let line = startLine; line < end && !hasContent; line++) {
    hasContent = !/^>\s*$/.test(lineText(state, line));
  }
  if (!hasContent) return false;
  if (silent) return true;

  const inner: string[] = [];
  for (let line = startLine; line < end; line++) {
    const text = lineText(state, line);
    if (text.trim() === '>') inner.push('');
    else if (text.startsWith('>') && state.sCount[line]! - state.blkIndent < 4) inner.push(text.slice(text.startsWith('> ') ? 2 : 1));
    else inner.push(state.src.slice(state.bMarks[line]! + Math.min(state.tShift[line]!, state.blkIndent), state.eMarks[line]!));
  }
  const open = state.push('blockquote_open', 'blockquote', 1);
  open.markup = '>';
  open.map = [startLine, end];
  const tokens: Token[] = [];
  const source = inner.join('\n');
  chargeWork((state.env as RenderEnv).work, source.length);
  state.env[QUOTE_DEPTH] = depth + 1;
  try {
    state.md.block.parse(source, state.md, state.env, tokens);
  } finally {
    state.env[QUOTE_DEPTH] = depth;
  }
  for (const token of tokens) {
    token.level += state.level;
    token.map = null;
    state.tokens.push(token);
  }
  state.push('blockquote_close', 'blockquote', -1).markup = '>';
  state.line = end;
  return true;
};

function skipBulletListMarker(state: StateBlock, line: number): number {
  const max = state.eMarks[line]!;
  let pos = state.bMarks[line]! + state.tShift[line]!;
  const marker = state.src.charCodeAt(pos++);
  if (marker !== 0x2a && marker !== 0x2d && marker !== 0x2b) return -1;
  if (pos < max && state.src.charCodeAt(pos) !== 0x20) return -1;
  return pos;
}

function skipOrderedListMarker(state: StateBlock, line: number): number {
  const start = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  let pos = start;
  if (pos + 1 >= max) return -1;
  let ch = state.src.charCodeAt(pos++);
  if (ch < 0x30 || ch > 0x39) return -1;
  for (;;) {
    if (pos >= max) return -1;
    ch = state.src.charCodeAt(pos++);
    if (ch >= 0x30 && ch <= 0x39) {
      if (pos - start >= 10) return -1;
      continue;
    }
    if (ch === 0x2e) break; // only "1." — Python-Markdown has no "1)" lists
    return -1;
  }
  if (pos < max && state.src.charCodeAt(pos) !== 0x20) return -1;
  return pos;
}

function markTightParagraphs(state: StateBlock, idx: number): void {
  const level = state.level + 2;
  for (let i = idx + 2, l = state.tokens.length - 2; i < l; i++) {
    if (state.tokens[i]!.level === level && state.tokens[i]!.type === 'paragraph_open') {
      state.tokens[i + 2]!.hidden = true;
      state.tokens[i]!.hidden = true;
      i += 2;
    }
  }
}

/** markdown-it's list rule, changed to Zulip's 2-space nesting and "sane lists". */
const list: BlockRule = (state, startLine, endLine, silent) => {
  let nextLine = startLine;
  let tight = true;
  if (state.sCount[nextLine]! - state.blkIndent >= 4) return false;
  if (state.listIndent >= 0 && state.sCount[nextLine]! - state.listIndent >= 4 && state.sCount[nextLine]! < state.blkIndent) {
    return false;
  }
  if (silent && state.parentType === 'paragraph' && state.listIndent < 0) return false;

  let isOrdered: boolean;
  let markerValue = 1;
  let posAfterMarker: number;
  let start = 0;
  if ((posAfterMarker = skipOrderedListMarker(state, nextLine)) >= 0) {
    isOrdered = true;
    start = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    markerValue = Number(state.src.slice(start, posAfterMarker - 1));
  } else if ((posAfterMarker = skipBulletListMarker(state, nextLine)) >= 0) {
    isOrdered = false;
  } else {
    return false;
  }
  if (silent && state.parentType === 'paragraph' && state.skipSpaces(posAfterMarker) >= state.eMarks[nextLine]!) {
    return false;
  }
  if (silent) return true;

  const listTokIdx = state.tokens.length;
  let token: Token;
  if (isOrdered) {
    token = state.push('ordered_list_open', 'ol', 1);
    if (markerValue !== 1) token.attrs = [['start', String(markerValue)]];
  } else {
    token = state.push('bullet_list_open', 'ul', 1);
  }
  const listLines: [number, number] = [nextLine, 0];
  token.map = listLines;
  let prevEmptyEnd = false;
  const terminatorRules = state.md.block.ruler.getRules('list');
  const oldParentType = state.parentType;
  state.parentType = 'list';

  while (nextLine < endLine) {
    const max = state.eMarks[nextLine]!;
    const contentStart = state.skipSpaces(posAfterMarker);
    // Zulip: an item's continuation lines (and nested lists) are indented 2 columns past
    // the marker's own indentation, whatever the marker's width.
    const indent = state.sCount[nextLine]! + 2;
    token = state.push('list_item_open', 'li', 1);
    const itemLines: [number, number] = [nextLine, 0];
    token.map = itemLines;
    if (isOrdered) token.info = state.src.slice(start, posAfterMarker - 1);

    const oldTight = state.tight;
    const oldTShift = state.tShift[nextLine]!;
    const oldSCount = state.sCount[nextLine]!;
    const oldListIndent = state.listIndent;
    state.listIndent = state.blkIndent;
    state.blkIndent = indent;
    state.tight = true;
    state.tShift[nextLine] = contentStart - state.bMarks[nextLine]!;
    state.sCount[nextLine] = indent;
    const oldItemFirstLine = itemFirstLine.get(state);
    itemFirstLine.set(state, nextLine);
    if (contentStart >= max && state.isEmpty(nextLine + 1)) {
      state.line = Math.min(state.line + 2, endLine);
    } else {
      state.md.block.tokenize(state, nextLine, endLine);
    }
    if (oldItemFirstLine === undefined) itemFirstLine.delete(state);
    else itemFirstLine.set(state, oldItemFirstLine);
    if (!state.tight || prevEmptyEnd) tight = false;
    prevEmptyEnd = state.line - nextLine > 1 && state.isEmpty(state.line - 1);
    state.blkIndent = state.listIndent;
    state.listIndent = oldListIndent;
    state.tShift[nextLine] = oldTShift;
    state.sCount[nextLine] = oldSCount;
    state.tight = oldTight;
    state.push('list_item_close', 'li', -1);
    nextLine = state.line;
    itemLines[1] = nextLine;

    if (nextLine >= endLine) break;
    if (state.sCount[nextLine]! < state.blkIndent) break;
    if (state.sCount[nextLine]! - state.blkIndent >= 4) break;
    let terminate = false;
    for (const rule of terminatorRules) {
      if (rule(state, nextLine, endLine, true)) {
        terminate = true;
        break;
      }
    }
    if (terminate) break;
    if (isOrdered) {
      posAfterMarker = skipOrderedListMarker(state, nextLine);
      if (posAfterMarker < 0) break;
      start = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    } else {
      posAfterMarker = skipBulletListMarker(state, nextLine);
      if (posAfterMarker < 0) break;
    }
  }
  state.push(isOrdered ? 'ordered_list_close' : 'bullet_list_close', isOrdered ? 'ol' : 'ul', -1);
  listLines[1] = nextLine;
  state.line = nextLine;
  state.parentType = oldParentType;
  if (tight) markTightParagraphs(state, listTokIdx);
  return true;
};

/**
 * Install the block rules and block renderers on `md` (which must have `html: false`).
 * Fences are disabled here because the fenced_code_block preprocessor has already replaced them.
 */
export function installZulipBlocks(md: MarkdownIt): void {
  md.block.ruler.disable(['fence', 'reference', 'html_block', 'lheading']);
  // Python-Markdown's tables only start at the beginning of a block: a table may not interrupt
  // a paragraph, so re-register markdown-it's table rule without its terminator role.
  const rules = (md.block.ruler as unknown as { __rules__?: { name: string; fn: BlockRule }[] }).__rules__;
  const table = rules?.find((rule) => rule.name === 'table')?.fn;
  if (table) md.block.ruler.at('table', table, { alt: [] });
  md.block.ruler.at('paragraph', paragraph);
  md.block.ruler.at('heading', heading, { alt: ['paragraph', 'blockquote'] });
  md.block.ruler.at('blockquote', blockquote, { alt: ['paragraph', 'list'] });
  md.block.ruler.at('list', list, { alt: ['paragraph', 'blockquote'] });

  md.renderer.rules.code_block = (tokens, idx) =>
    codehiliteHtml(tokens[idx]!.content.replace(/\s+$/, ''), null) + '\n';

  // In a tight item, Python-Markdown puts a nested list right after the item's text.
  const listOpen: NonNullable<typeof md.renderer.rules.bullet_list_open> = (tokens, idx, options, _env, self) => {
    const html = self.renderToken(tokens, idx, options);
    const prev = tokens[idx - 1];
    return prev?.hidden && prev.type === 'paragraph_close' ? html.replace(/^\n/, '') : html;
  };
  md.renderer.rules.bullet_list_open = listOpen;
  md.renderer.rules.ordered_list_open = listOpen;

  // Python-Markdown's tables write alignment as `style="text-align: left;"`.
  const cellOpen: NonNullable<typeof md.renderer.rules.th_open> = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    const style = String(token.attrGet('style') ?? '');
    if (style.startsWith('text-align:')) token.attrSet('style', `text-align: ${style.slice(11)};`);
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.th_open = cellOpen;
  md.renderer.rules.td_open = cellOpen;
}
