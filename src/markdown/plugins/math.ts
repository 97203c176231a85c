/**
 * TeX math through KaTeX, as Zulip renders it (zerver/lib/markdown: `Tex` inline pattern at
 * priority 90, fenced_code.py `TexHandler` / `format_tex`, zerver/lib/tex.py `render_tex`):
 *
 * - inline `$$…$$` (Zulip's `TEX_RE`: not next to a word character or another `$`, no newline,
 *   body not starting with `_`, `\$` allowed inside) → KaTeX's `<span class="katex">…`;
 * - ```math blocks: each blank-line-separated paragraph in display mode →
 *   `<span class="katex-display">…`, kept inside the surrounding `<p>` (inline HTML, as in Zulip);
 * - invalid TeX: `<span class="tex-error">$$body$$</span>` inline (text escaped like all text),
 *   `<span class="tex-error">body</span>` in blocks (Django `escape`: quotes too).
 *
 * KaTeX runs with its defaults (`throwOnError`), as Zulip's KaTeX server does (warnings silenced); its output is
 * HTML-escaped by KaTeX itself and never contains raw input markup. Byte-for-byte equality with
 * Zulip's stored HTML needs the KaTeX release Zulip uses (0.16.x); later releases renamed some
 * classes and round some lengths differently.
 */
import { createRequire } from 'node:module';
import type { MarkdownPlugin } from '../render.js';
import type { InlinePattern } from './inline-engine.js';
import type { FenceHandler } from './preprocess.js';
import { chargeWork, TEX_RENDER_WORK, type RenderWork } from '../render-budget.js';

interface KatexApi {
  renderToString(tex: string, options: { displayMode: boolean; throwOnError: boolean; strict: 'ignore' }): string;
}

/**
 * KaTeX, loaded by the first formula: ~2 MiB of heap and 1.2 MB of source that an idle server (or
 * one whose users never write `$$`) does not need (issue 17). `require` keeps the first render
 * synchronous; a load failure throws there like any other render error would.
 */
let katexApi: KatexApi | undefined;
const katex = (): KatexApi => (katexApi ??= createRequire(import.meta.url)('katex') as KatexApi);

/** Recent KaTeX results by mode + TeX (bounded; cleared when full): a repeated formula renders once. */
const texCache = new Map<string, string | null>();
const TEX_CACHE_ENTRIES = 1000;

/**
 * `render_tex`: KaTeX HTML, or null when the TeX does not parse. A KaTeX run (not a cached
 * result) is charged to the render's work budget (`work`, see render-budget.ts).
 */
export function renderTex(tex: string, inline: boolean, work?: RenderWork): string | null {
  const key = (inline ? 'i' : 'd') + tex;
  const cached = texCache.get(key);
  if (cached !== undefined) return cached;
  chargeWork(work, TEX_RENDER_WORK + tex.length);
  const api = katex(); // outside the try: a missing KaTeX is a server fault, not TeX that does not parse
  let html: string | null;
  try {
    // `strict: 'ignore'`: same HTML as KaTeX's default 'warn', without a console warning per message.
    html = api.renderToString(tex, { displayMode: !inline, throwOnError: true, strict: 'ignore' }).trim();
  } catch {
    html = null;
  }
  if (texCache.size >= TEX_CACHE_ENTRIES) texCache.clear();
  texCache.set(key, html);
  return html;
}

/** Django's `escape`. */
function djangoEscape(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');
}

/** Zulip's `TEX_RE`, with Python's Unicode `\B` spelled out as lookarounds. */
const TEX_RE = /(?<![\p{L}\p{N}_$])\$\$(?<body>[^\n_$](?:\\\$|[^$\n])*)\$\$(?![\p{L}\p{N}_$])/gu;
/** `TEX_RE` right after a placeholder (whose last character passes the lookbehind), sticky. */
const TEX_AFTER_PLACEHOLDER_RE = /\$\$(?<body>[^\n_$](?:\\\$|[^$\n])*)\$\$(?![\p{L}\p{N}_$])/uy;

const inlineTex: InlinePattern = {
  name: 'tex',
  priority: 90,
  legacy: true,
  regex: TEX_RE,
  // Rescan hint (inline-engine.ts `resume`): the body holds no newline and no `$` unless escaped
  // by a backslash; `$$` opens and closes; `handle` only reads the match.
  resume: {
    isBlocker: (data, i) => data[i] === '\n' || (data[i] === '$' && data[i - 1] !== '\\'),
    back: 2,
    openers: '$',
    afterPlaceholder: TEX_AFTER_PLACEHOLDER_RE,
  },
  handle(m, _data, ctx) {
    const body = m.groups!['body']!;
    const start = m.index;
    const end = start + m[0].length;
    const html = renderTex(body, true, ctx.env.work);
    if (html !== null) return { node: { kind: 'html', html, text: m[0] }, start, end };
    return {
      node: { kind: 'element', open: '<span class="tex-error">', close: '</span>', content: `$$${body}$$`, atomic: true },
      start,
      end,
    };
  },
};

/** ```math: display-mode TeX per paragraph (inline HTML: it stays inside the paragraph). */
export const MATH_FENCE: FenceHandler = {
  processContents: false,
  block: false,
  format(text, _info, ctx) {
    return text
      .split('\n\n')
      .map((paragraph) => renderTex(paragraph, false, ctx.env.work) ?? `<span class="tex-error">${djangoEscape(paragraph)}</span>`)
      .join('\n\n');
  },
};

/** Inline `$$…$$` and ```math blocks. */
export const mathPlugin: MarkdownPlugin = {
  name: 'math',
  fenceHandlers: { math: MATH_FENCE },
  inlinePatterns: [inlineTex],
};
