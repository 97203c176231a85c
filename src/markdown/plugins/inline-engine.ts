/**
 * The inline half of the renderer: a port of Python-Markdown's `InlineProcessor`, which is what
 * gives Zulip's inline syntax its semantics (and which CommonMark's delimiter algorithm does
 * not reproduce: `**` never spans lines, `_` is not emphasis, `~~ x ~~` strikes through, code
 * spans keep their spaces, link text is not re-parsed, bare URLs need whitespace around them).
 *
 * How it works (as in Python-Markdown): patterns run one after another in priority order
 * (highest first, Zulip's registry numbers). Each pattern scans the whole text repeatedly; a
 * match is replaced by a placeholder `\x02klzzwxh:N\x03` pointing at a stashed node, so later
 * (lower-priority) patterns cannot look inside it. The content of a non-atomic element is
 * processed only by the patterns after the one that produced it. At the end, placeholders are
 * expanded and all remaining text is HTML-escaped the way Python-Markdown's serializer does.
 *
 * Raw HTML in the source is therefore never passed through: text only reaches the output via
 * {@link escapeText}; markup only comes from pattern handlers.
 */
import { chargeWork } from '../render-budget.js';
import {
  AMP_NOT_ENTITY,
  BLOCK_PLACEHOLDER_RE,
  ETX,
  INLINE_PLACEHOLDER_RE,
  STX,
  escapeText,
  type InlineContext,
  type InlineNode,
  type InlinePattern,
  type RenderEnv,
} from './inline-nodes.js';

export * from './inline-nodes.js';

/** Runs a fixed, priority-sorted list of patterns. Create once; `render` is reentrant. */
export class InlineEngine {
  private readonly patterns: readonly InlinePattern[];

  constructor(patterns: readonly InlinePattern[]) {
    this.patterns = [...patterns].sort((a, b) => b.priority - a.priority);
  }

  /** Render one paragraph's / heading's / cell's raw inline text to HTML. */
  render(text: string, env: RenderEnv): string {
    const stash: InlineNode[] = [];
    const ctx: InlineContext = { env, unescape: (t) => unescapeWith(stash, t) };
    const processed = this.process(text, 0, stash, ctx);
    return expand(processed, stash, env);
  }

  private process(data: string, patternIndex: number, stash: InlineNode[], ctx: InlineContext): string {
    // Python's `startIndex`, and where the next search may begin (`resume`: at or after it).
    let startIndex = 0;
    let searchFrom = 0;
    let memo: BlockerMemo = { low: -1, high: -1, scanned: 0 };
    while (patternIndex < this.patterns.length) {
      const pattern = this.patterns[patternIndex]!;
      if (pattern.replaceAll) {
        chargeWork(ctx.env.work, data.length);
        const index = patternIndex;
        data = pattern.replaceAll(data, ctx, (node) => this.stashNode(node, index, stash, ctx));
        patternIndex++;
        continue;
      }
      if (pattern.global) {
        data = this.applyGlobal(pattern, data, patternIndex, stash, ctx);
        patternIndex++;
        continue;
      }
      if (pattern.resume?.openers !== undefined && startIndex === 0) {
        data = this.applyDeferred(pattern, data, patternIndex, stash, ctx);
        patternIndex++;
        continue;
      }
      const result = this.applyPattern(pattern, data, patternIndex, startIndex, searchFrom, stash, ctx, memo);
      if (result === null) {
        patternIndex++;
        startIndex = 0;
        searchFrom = 0;
        memo = { low: -1, high: -1, scanned: 0 };
      } else {
        [data, startIndex, searchFrom] = result;
      }
    }
    return data;
  }

  /**
   * Python's `__applyPattern`: null when the pattern found nothing (move to the next one), else
   * the new text, Python's `startIndex` for the rescan and where that rescan may begin searching.
   * Python rescans from 0 after a replacement, declining the same matches again, so its
   * `startIndex` is back at the value of the successful search when it gets there; only where
   * the search starts moves (`resume`).
   */
  private applyPattern(
    pattern: InlinePattern,
    data: string,
    patternIndex: number,
    startIndex: number,
    searchFrom: number,
    stash: InlineNode[],
    ctx: InlineContext,
    memo: BlockerMemo,
  ): [string, number, number] | null {
    const re = pattern.regex!;
    for (;;) {
      const from = Math.max(startIndex, searchFrom);
      if (from > data.length) return null;
      re.lastIndex = from;
      const m = re.exec(data);
      // Each search scans up to its match (or the end).
      chargeWork(ctx.env.work, (m === null ? data.length : m.index + m[0].length) - from);
      if (m === null) return null;
      const match = pattern.handle!(m, data, ctx);
      if (match === null) {
        if (pattern.legacy) return [data, data.length + 1, data.length + 1];
        // Python-Markdown does `startIndex += match.end(0)` here (not `=`); kept as is.
        startIndex += m.index + m[0].length;
        continue;
      }
      const placeholder = this.stashNode(match.node, patternIndex, stash, ctx);
      // Rebuilding the string is a copy, far cheaper per character than a regex scan.
      chargeWork(ctx.env.work, data.length >> 4);
      let resumeAt = 0;
      let keepIndex = false;
      if (pattern.resume !== undefined) {
        const blocker = lastBlocker(data, match.start, pattern.resume.isBlocker, memo);
        chargeWork(ctx.env.work, memo.scanned);
        // No blocker before the match: nothing before it can pair with anything after it.
        const back = pattern.resume.back;
        keepIndex = blocker < 0 || back !== 'restart';
        if (blocker < 0) resumeAt = Math.max(startIndex, match.start);
        else if (back !== 'restart') resumeAt = Math.max(startIndex, blocker - back, 0);
        memo.low = blocker;
        memo.high = match.start + placeholder.length;
      }
      return [data.slice(0, match.start) + placeholder + data.slice(match.end), keepIndex ? startIndex : 0, resumeAt];
    }
  }

  /**
   * The whole `applyPattern` loop of a pattern with `resume.openers`, without rebuilding the text
   * after each match: the text before a replacement is final (`pieces`), the search goes on in
   * the original text (`base`) at the end of the match, and `startIndex` keeps Python's
   * positions in the virtual text (pieces + the rest of base). When a blocker with an opener just
   * before it precedes a match, an earlier match could now span the placeholder: the text is
   * built once and the ordinary loop takes over from the `resume` point.
   */
  private applyDeferred(pattern: InlinePattern, data: string, patternIndex: number, stash: InlineNode[], ctx: InlineContext): string {
    const re = pattern.regex!;
    const resume = pattern.resume!;
    const openers = resume.openers!;
    const back = resume.back === 'restart' ? 0 : resume.back;
    const base = data;
    const pieces: string[] = [];
    let outLen = 0;
    let copied = 0;
    let tail = '';
    let outBlocker = -1;
    let outBlockerOpener = false;
    let startIndex = 0;
    let searchFrom = 0;
    const finish = (): string => (pieces.length === 0 ? base : pieces.join('') + base.slice(copied));
    for (;;) {
      const delta = outLen - copied;
      const virtualFrom = Math.max(startIndex, searchFrom);
      if (virtualFrom > base.length + delta) return finish();
      const from = Math.max(virtualFrom - delta, copied);
      let m: RegExpExecArray | null = null;
      if (resume.afterPlaceholder !== undefined && from === copied && pieces.length > 0) {
        resume.afterPlaceholder.lastIndex = from;
        m = resume.afterPlaceholder.exec(base);
      }
      if (m === null) {
        re.lastIndex = from;
        m = re.exec(base);
      }
      chargeWork(ctx.env.work, (m === null ? base.length : m.index + m[0].length) - from);
      if (m === null) return finish();
      const match = pattern.handle!(m, base, ctx);
      if (match === null) {
        if (pattern.legacy) return finish();
        startIndex += m.index + m[0].length + delta;
        continue;
      }
      const placeholder = this.stashNode(match.node, patternIndex, stash, ctx);
      if (match.end < match.start) {
        // Python's `data[end:]` with a negative end (an unbalanced link title): rebuild exactly
        // that way, then rescan from the start as Python does.
        const virtual = pieces.join('') + base.slice(copied);
        return this.applyFrom(pattern, virtual.slice(0, match.start + delta) + placeholder + virtual.slice(match.end), patternIndex, 0, 0, stash, ctx);
      }
      // The last blocker before the match, in the virtual text, and whether an opener precedes it.
      let blocker: number = outBlocker;
      let opener: boolean = outBlockerOpener;
      for (let i = match.start - 1; i >= copied; i--) {
        chargeWork(ctx.env.work, 1);
        if (!resume.isBlocker(base, i)) continue;
        blocker = i + delta;
        opener = false;
        for (let v = Math.max(blocker - back, 0); v < blocker; v++) {
          const ch = v >= outLen ? base[v - delta] : tail[v - (outLen - tail.length)];
          if (ch !== undefined && openers.includes(ch)) opener = true;
        }
        break;
      }
      const segment = base.slice(copied, match.start);
      if (blocker >= 0 && (opener || resume.back === 'restart')) {
        // An earlier match may now span the placeholder: build the text, rescan as Python does.
        const text = pieces.join('') + segment + placeholder + base.slice(match.end);
        chargeWork(ctx.env.work, text.length >> 4);
        const at = resume.back === 'restart' ? 0 : Math.max(startIndex, blocker - resume.back, 0);
        return this.applyFrom(pattern, text, patternIndex, resume.back === 'restart' ? 0 : startIndex, at, stash, ctx);
      }
      const start = match.start + delta;
      pieces.push(segment, placeholder);
      outLen += segment.length + placeholder.length;
      tail = (tail + segment + placeholder).slice(-Math.max(back, 1));
      outBlocker = blocker;
      outBlockerOpener = opener;
      copied = match.end;
      searchFrom = Math.max(startIndex, start);
    }
  }

  /** The ordinary `applyPattern` loop of one pattern from the given state, to its end. */
  private applyFrom(
    pattern: InlinePattern,
    text: string,
    patternIndex: number,
    startIndex: number,
    searchFrom: number,
    stash: InlineNode[],
    ctx: InlineContext,
  ): string {
    const memo: BlockerMemo = { low: -1, high: -1, scanned: 0 };
    for (;;) {
      const result = this.applyPattern(pattern, text, patternIndex, startIndex, searchFrom, stash, ctx, memo);
      if (result === null) return text;
      [text, startIndex, searchFrom] = result;
    }
  }

  /** One pass over all matches of a `global` pattern. */
  private applyGlobal(
    pattern: InlinePattern,
    data: string,
    patternIndex: number,
    stash: InlineNode[],
    ctx: InlineContext,
  ): string {
    const re = pattern.regex!;
    let out = '';
    let copied = 0;
    chargeWork(ctx.env.work, data.length);
    re.lastIndex = 0;
    for (let m = re.exec(data); m !== null; m = re.exec(data)) {
      const next = m.index + Math.max(m[0].length, 1);
      const match = pattern.handle!(m, data, ctx);
      if (match === null) {
        if (pattern.legacy) break;
        re.lastIndex = next;
        continue;
      }
      out += data.slice(copied, match.start) + this.stashNode(match.node, patternIndex, stash, ctx);
      copied = match.end;
      re.lastIndex = Math.max(match.end, next);
    }
    return copied === 0 ? data : out + data.slice(copied);
  }

  private stashNode(node: InlineNode, patternIndex: number, stash: InlineNode[], ctx: InlineContext): string {
    if (typeof node !== 'string' && node.kind === 'element' && !node.atomic) {
      node = { ...node, content: this.process(node.content, patternIndex + 1, stash, ctx) };
    }
    const placeholder = `${STX}klzzwxh:${String(stash.length).padStart(4, '0')}${ETX}`;
    stash.push(node);
    return placeholder;
  }
}

/**
 * What the last rescan learned: `data[low]` is a blocker (or `low` = -1) and `data(low, high)`
 * holds none, so the next backwards search can stop at `high`. `scanned`: characters looked at.
 */
interface BlockerMemo {
  low: number;
  high: number;
  scanned: number;
}

/** Index of the last blocker before `end` (-1 if none), using and not updating `memo`. */
function lastBlocker(data: string, end: number, isBlocker: (data: string, index: number) => boolean, memo: BlockerMemo): number {
  memo.scanned = 0;
  if (memo.low < end && end <= memo.high) return memo.low;
  const stop = memo.high <= end && memo.low < memo.high ? memo.high : 0;
  for (let i = end - 1; i >= stop; i--) {
    memo.scanned++;
    if (isBlocker(data, i)) return i;
  }
  return stop > 0 ? memo.low : -1;
}

/** Placeholders, plus the characters {@link escapeText} rewrites, in one alternation. */
const EXPAND_RE = new RegExp(
  `${INLINE_PLACEHOLDER_RE.source}|${BLOCK_PLACEHOLDER_RE.source}|${AMP_NOT_ENTITY.source}|[<>]`,
  'gi',
);

/** Final serialization: expand placeholders, escape everything else (one pass per level). */
function expand(data: string, stash: readonly InlineNode[], env: RenderEnv): string {
  if (!/[\x02&<>]/.test(data)) return data;
  // String#replace collects all matches before calling back, so recursion may reuse EXPAND_RE.
  return data.replace(EXPAND_RE, (m: string, inline?: string, block?: string) => {
    if (inline !== undefined) {
      const node = stash[Number(inline)];
      if (node === undefined) return '';
      if (typeof node === 'string') return escapeText(node);
      if (node.kind === 'html') return node.html;
      return node.open + expand(node.content, stash, env) + node.close;
    }
    if (block !== undefined) return env.htmlStash[Number(block)]?.html ?? '';
    return m === '<' ? '&lt;' : m === '>' ? '&gt;' : '&amp;';
  });
}

function unescapeWith(stash: readonly InlineNode[], text: string): string {
  if (!text.includes(STX)) return text;
  return text.replace(INLINE_PLACEHOLDER_RE, (_, n: string) => {
    const node = stash[Number(n)];
    if (node === undefined) return '';
    if (typeof node === 'string') return node;
    if (node.kind === 'html') return node.text;
    return unescapeWith(stash, node.content);
  });
}
