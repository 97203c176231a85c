/**
 * Zulip-flavored Markdown → HTML, on markdown-it.
 *
 * The target is byte-for-byte the HTML Zulip's backend (`zerver/lib/markdown`, built on
 * Python-Markdown) stores in `rendered_content`, checked against Zulip's own conformance cases
 * (`markdown_test_cases.json`, see test/markdown/render.test.ts). To get there the pipeline
 * mirrors Python-Markdown's stages rather than CommonMark's:
 *
 *   1. preprocessors on source lines (hanging lists, whitespace normalization, fenced blocks);
 *   2. markdown-it's block parser with Zulip's block rules (plugins/blocks.ts);
 *   3. every inline run (paragraph, heading, table cell) rendered by a Python-Markdown-style
 *      priority-ordered pattern engine (plugins/inline-engine.ts) instead of markdown-it's
 *      CommonMark inline parser, whose results differ from Zulip's in many everyday cases;
 *   4. markdown-it's renderer, output trimmed like Python-Markdown's.
 *
 * Safety: `html: false`, and no path copies source text to the output unescaped; links only
 * carry allow-listed schemes (plugins/url.ts), so `javascript:`/`vbscript:`/`data:` never link.
 *
 * Extension: Zulip-specific syntax (mentions, emoji, channel links, spoilers, math,
 * linkifiers, /me...) is added as {@link MarkdownPlugin}s under `src/markdown/plugins/`,
 * each contributing preprocessors / fence handlers / inline patterns at Zulip's priorities.
 * Build an instance once with {@link createRenderer}; rendering does no per-call setup.
 *
 * markdown-it is pinned to the 14.x line: 15.x ships a build whose class fields go through a
 * transpiler's `_defineProperty` helper, so every token costs ~13 generic property definitions;
 * at max_message_length that made markdown-it alone 3-4× slower (10 KB of `* a` lines: 7.6 ms
 * against 2.1 ms), for identical output (test/markdown, and 140,000 random inputs compared).
 */
import MarkdownIt from 'markdown-it';
import type { ZulipRenderContext } from './context.js';
import { chargeWork, type RenderWork } from './render-budget.js';
import type { MarkdownIt as MarkdownItInstance, StateCore, Token } from 'markdown-it';
import { BASIC_INLINE_PATTERNS } from './plugins/basic-inline.js';
import { installZulipBlocks } from './plugins/blocks.js';
import {
  blockPlaceholder,
  InlineEngine,
  type InlinePattern,
  type RenderEnv,
} from './plugins/inline-engine.js';
import {
  BASIC_PREPROCESSORS,
  QUOTE_FENCE,
  type FenceHandler,
  type PreprocessContext,
  type Preprocessor,
} from './plugins/preprocess.js';

export type { InlinePattern, InlineNode, InlineMatch, InlineContext, RenderEnv } from './plugins/inline-engine.js';
export type { Preprocessor, FenceHandler, FenceInfo, PreprocessContext } from './plugins/preprocess.js';

/**
 * A unit of Markdown syntax. Everything is optional; a plugin contributes:
 * - `preprocessors`: source-line transforms (Zulip preprocessor priorities, higher first);
 * - `fenceHandlers`: fenced-block kinds by lowercased language (`spoiler`, `math`...);
 * - `inlinePatterns`: inline syntaxes (Zulip inline-pattern priorities, higher first);
 * - `configure`: direct access to the markdown-it instance (block rules, renderer rules);
 * - `afterInline`: a pass over the token stream once every inline run is rendered (inline
 *   previews, Zulip's treeprocessors that run after its `InlineProcessor`).
 */
export interface MarkdownPlugin {
  name: string;
  preprocessors?: readonly Preprocessor[];
  fenceHandlers?: Readonly<Record<string, FenceHandler>>;
  inlinePatterns?: readonly InlinePattern[];
  configure?(md: MarkdownItInstance): void;
  afterInline?(state: StateCore): void;
}

/** Per-call options of {@link Renderer.render}. */
export interface RenderOptions {
  /**
   * The realm's base URL (e.g. `https://chat.example.com`): links into it (`/#narrow/...`,
   * `/user_uploads/...`) are rendered relative, as Zulip does. Omitted: links stay absolute.
   */
  realmUrl?: string;
  /** Realm data for Zulip-specific syntax and the findings it reports (see `context.ts`). */
  zulip?: ZulipRenderContext;
  /**
   * Work budget (`render-budget.ts`): past its limit `render` throws `MarkdownRenderingError`.
   * Absent: unlimited (inputs bounded elsewhere, e.g. 1024-character channel descriptions).
   */
  work?: RenderWork;
}

/** A configured renderer: build once, call `render` per message. */
export interface Renderer {
  /** Message Markdown → HTML (no trailing newline; `""` for blank input). */
  render(content: string, options?: RenderOptions): string;
  /** The underlying markdown-it instance (for plugins and tests; do not reconfigure after build). */
  readonly md: MarkdownItInstance;
}

/** The plugin providing the plain (non-Zulip-specific) Markdown every message gets. */
export const basicMarkdownPlugin: MarkdownPlugin = {
  name: 'basic',
  preprocessors: BASIC_PREPROCESSORS,
  fenceHandlers: { quote: QUOTE_FENCE, quoted: QUOTE_FENCE },
  inlinePatterns: BASIC_INLINE_PATTERNS,
  configure: installZulipBlocks,
};

const BLOCK_PLACEHOLDER_ONLY = /^\s*\x02wzxhzdk:(\d+)\x03\s*$/;

/**
 * Build a renderer from plugins (applied in order; `basicMarkdownPlugin` is not implied).
 * The returned object holds one markdown-it instance and one inline engine for its lifetime.
 */
export function createRenderer(plugins: readonly MarkdownPlugin[]): Renderer {
  const md = new MarkdownIt('default', {
    html: false,
    linkify: false,
    typographer: false,
    breaks: true,
    xhtmlOut: false,
  });
  // Inline parsing is ours entirely; markdown-it's inline rules and their core passes go.
  md.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join']);
  // Our link patterns sanitize on their own; keep markdown-it's validator strict anyway.
  md.validateLink = () => false;

  const preprocessors: Preprocessor[] = [];
  const fenceHandlers = new Map<string, FenceHandler>();
  const inlinePatterns: InlinePattern[] = [];
  for (const plugin of plugins) {
    preprocessors.push(...(plugin.preprocessors ?? []));
    for (const [lang, handler] of Object.entries(plugin.fenceHandlers ?? {})) {
      fenceHandlers.set(lang.toLowerCase(), handler);
    }
    inlinePatterns.push(...(plugin.inlinePatterns ?? []));
    plugin.configure?.(md);
  }
  preprocessors.sort((a, b) => b.priority - a.priority);
  const engine = new InlineEngine(inlinePatterns);

  md.core.ruler.push('zulip_inline', (state: StateCore) => {
    const env = state.env as unknown as RenderEnv;
    const tokens = state.tokens;
    const out: Token[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.type === 'paragraph_open' && tokens[i + 1]?.type === 'inline') {
        // A paragraph that is only a stashed block (e.g. a fenced code block) becomes that block.
        const m = BLOCK_PLACEHOLDER_ONLY.exec(tokens[i + 1]!.content);
        const stashed = m ? env.htmlStash[Number(m[1])] : undefined;
        if (stashed?.block) {
          const block = new state.Token('html_block', '', 0);
          block.content = stashed.html + '\n';
          block.level = token.level;
          out.push(block);
          i += 2;
          continue;
        }
      }
      if (token.type === 'inline') {
        const html = new state.Token('html_inline', '', 0);
        html.content = engine.render(token.content, env);
        token.children = [html];
      }
      out.push(token);
    }
    state.tokens = out;
  });
  for (const plugin of plugins) if (plugin.afterInline) md.core.ruler.push(`${plugin.name}_after_inline`, plugin.afterInline);

  return {
    md,
    render(content: string, options: RenderOptions = {}): string {
      if (!content.trim()) return '';
      const env: RenderEnv = { htmlStash: [] };
      if (options.realmUrl !== undefined) env.realmUrl = options.realmUrl;
      if (options.zulip !== undefined) env.zulip = options.zulip;
      if (options.work !== undefined) env.work = options.work;
      const ctx: PreprocessContext = {
        env,
        fenceHandlers,
        stash(html, block) {
          env.htmlStash.push({ html, block });
          return blockPlaceholder(env.htmlStash.length - 1);
        },
      };
      let lines = content.split('\n');
      for (const pre of preprocessors) {
        chargeWork(env.work, content.length);
        lines = pre.run(lines, ctx);
      }
      const source = lines.join('\n');
      chargeWork(env.work, source.length);
      return md.render(source, env as unknown as Record<string, unknown>).trim();
    },
  };
}

const defaultRenderer = createRenderer([basicMarkdownPlugin]);

/**
 * Render a message's Markdown to HTML as Zulip's backend would for plain Markdown constructs
 * (paragraphs with `<br>` line breaks, **strong**, *em*, ~~del~~, `code`, links and bare URLs,
 * `#` headings, quotes, lists, code blocks, tables). Raw HTML is escaped. Uses one shared
 * instance built at module load.
 */
export function renderMarkdown(content: string, options?: RenderOptions): string {
  return defaultRenderer.render(content, options);
}
