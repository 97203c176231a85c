/**
 * Inline image and video previews, as Zulip's `InlineInterestingLinkProcessor` and
 * `InlineVideoProcessor` (zerver/lib/markdown/__init__.py) build them after the inline patterns ran:
 *
 * - every `<a href>` of the message is found in breadth-first order (`walk_tree_with_family`);
 *   links inside a blockquote are never previewed, and a message with more than 24 distinct
 *   previewable URLs gets none (`INLINE_PREVIEW_LIMIT_PER_MESSAGE`); each URL is previewed once;
 * - a `.mp4`/`.webm` URL (`is_video`, Python's `mimetypes`) becomes
 *   `<div class="message_inline_image message_inline_video"><a href=URL [title]><video
 *   data-video-original-url=URL preload="metadata" src=CAMO(URL)></video></a></div>` (relative
 *   and same-realm URLs are not proxied);
 * - an image URL (`is_image`: path ends in an image extension, not pasteboard.co; an uploaded
 *   file only when `uploadPreview` knows it) becomes `<div class="message_inline_image"><a
 *   href=URL [title]><img …></a></div>`: external images through `/thumbnail?url=…&size=…`
 *   (`data-src-fullsize` and `src`, the markup of Zulip's Markdown fixture), uploads with their
 *   original dimensions and 840×560 WebP thumbnail (or Zulip's loading placeholder);
 * - placement (`get_inlining_information`): a link directly in a paragraph → the preview goes
 *   right after that paragraph (after earlier previews of it), and the paragraph is dropped when
 *   the bare link was all it held; a link directly in a list item → at the end of the item (the
 *   bare link dropped); anywhere else → at the end of the message. A named link keeps its text
 *   as the preview's `title`.
 *
 * Twitter, YouTube, Vimeo, Dropbox and open-graph embeds are not built (they need network
 * fetches at render time). Previews need `env.zulip` (message rendering), as Zulip's
 * `image_preview_enabled`; `inlineImagePreview: false` turns them off.
 */
import { camoUrl } from '../../domain/camo.js';
import type { UploadImagePreview } from '../../domain/upload-thumbnails.js';
import type { StateCore, Token } from 'markdown-it';
import type { MarkdownPlugin } from '../render.js';
import type { RenderEnv } from './inline-engine.js';
import { escapeAttr } from './inline-engine.js';

/** Zulip's `IMAGE_EXTENSIONS`. */
const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];
/** Zulip's `INLINE_PREVIEW_LIMIT_PER_MESSAGE`. */
const PREVIEW_LIMIT = 24;
/** Python `mimetypes.guess_type` → video/mp4 or video/webm (the containers Zulip inlines). */
const VIDEO_EXTENSIONS = ['.mp4', '.webm'];

export { camoUrl, EXTERNAL_CONTENT_PREFIX, type CamoConfig } from '../../domain/camo.js';

/** What the renderer knows about an uploaded image (Zulip's `MarkdownImageMetadata`). */
export type UploadPreview = UploadImagePreview;

/**
 * The `<img>` of an uploaded image: Zulip's placeholder as `add_a` builds it, or, once
 * thumbnailed, as `rewrite_thumbnailed_images` leaves it (class dropped, `src` kept in place,
 * then dimensions, content type, `data-animated`, `data-transcoded-image`).
 */
function uploadImg(p: UploadPreview): string {
  const dims = ` data-original-dimensions="${p.width}x${p.height}"`;
  const type = p.contentType === '' ? '' : ` data-original-content-type="${escapeAttr(p.contentType)}"`;
  if (p.thumbnailUrl === null) return `<img class="image-loading-placeholder" src="/static/images/loading/loader-black.svg"${dims}${type}>`;
  const animated = p.animated ? ' data-animated="true"' : '';
  const transcoded = p.transcodedFormat === null ? '' : ` data-transcoded-image="${escapeAttr(p.transcodedFormat)}"`;
  return `<img src="${escapeAttr(p.thumbnailUrl)}"${dims}${type}${animated}${transcoded}>`;
}

/** Python's `urllib.parse.quote_plus` (UTF-8; safe: letters, digits, `_.-~`). */
function quotePlus(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9_.~-]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The parts of `urlsplit` the preview rules read. */
function split(url: string): { scheme: string; netloc: string; path: string } {
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)/.exec(url)!;
  return { scheme: (m[1] ?? '').toLowerCase(), netloc: m[2] ?? '', path: m[3] ?? '' };
}

const ENTITY: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITY[e.toLowerCase()] ?? m;
  });
}

const VOID = new Set(['br', 'img', 'hr', 'input', 'wbr', 'col', 'source', 'path', 'line', 'rect']);
const TAG_RE = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"]|"[^"]*")*)>/g;

/** One `<a>` found in an inline run. */
interface FoundLink {
  url: string;
  /** The link's own text before any child element; null when it starts with an element or is empty. */
  text: string | null;
  /** Element level from the message root (breadth-first order key). */
  level: number;
  /** Position in document order. */
  order: number;
  /** The inline token holding it, and the `<a>…</a>` span in that token's HTML. */
  inline: Token;
  start: number;
  end: number;
  /** The direct parent element: the block (`p`, `li`, `h1`, `td`…) or an inline element (`strong`…). */
  parentTag: string;
  /** For a paragraph parent: the paragraph_close token index (previews go after it). */
  paragraphClose: number | null;
  /** No text after `</a>` before the next element (`ahref_element.tail`). */
  noTail: boolean;
  /** The parent paragraph / item has no text before its first element. */
  parentNoText: boolean;
  /** The parent's number of child elements. */
  parentChildren: number;
  inBlockquote: boolean;
}

/** The `<a>` elements of one inline run's HTML, with what placement needs. */
function linksOf(html: string, inline: Token, containerTag: string, containerLevel: number, inBlockquote: boolean, paragraphClose: number | null, orderBase: number): FoundLink[] {
  const out: FoundLink[] = [];
  const stack: string[] = [];
  let topChildren = 0;
  TAG_RE.lastIndex = 0;
  const firstTag = html.indexOf('<');
  const parentNoText = firstTag < 0 ? html.trim() === '' : html.slice(0, firstTag) === '' || html.slice(0, firstTag) === '\n';
  const open: Array<{ index: number; link: FoundLink | null }> = [];
  for (let m = TAG_RE.exec(html); m !== null; m = TAG_RE.exec(html)) {
    const closing = m[1] === '/';
    const tag = m[2]!.toLowerCase();
    if (closing) {
      stack.pop();
      const o = open.pop();
      if (o?.link != null) {
        o.link.end = m.index + m[0].length;
        const next = html.indexOf('<', o.link.end);
        o.link.noTail = (next < 0 ? html.slice(o.link.end) : html.slice(o.link.end, next)) === '';
        const inner = html.slice(o.index, m.index);
        const lt = inner.indexOf('<');
        const text = lt < 0 ? inner : inner.slice(0, lt);
        o.link.text = text === '' ? null : unescapeHtml(text);
      }
      continue;
    }
    if (stack.length === 0) topChildren++;
    const selfClosing = VOID.has(tag) || m[3]!.endsWith('/');
    if (tag === 'a' && !selfClosing) {
      const href = /\shref="([^"]*)"/.exec(m[3]!);
      const link: FoundLink | null = href === null ? null : {
        url: unescapeHtml(href[1]!), text: null, level: containerLevel + stack.length + 1, order: orderBase + out.length,
        inline, start: m.index, end: m.index, parentTag: stack.length === 0 ? containerTag : stack[stack.length - 1]!,
        paragraphClose: stack.length === 0 ? paragraphClose : null, noTail: false, parentNoText, parentChildren: 0, inBlockquote,
      };
      if (link !== null) out.push(link);
      open.push({ index: m.index + m[0].length, link });
      stack.push(tag);
      continue;
    }
    if (!selfClosing) {
      open.push({ index: m.index + m[0].length, link: null });
      stack.push(tag);
    }
  }
  for (const link of out) link.parentChildren = topChildren;
  return out;
}

/** Block tokens' element names (markdown-it `tag`), for parent checks. */
function collectLinks(tokens: Token[]): FoundLink[] {
  const found: FoundLink[] = [];
  const stack: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.nesting === 1 && !token.hidden) stack.push(token.tag);
    else if (token.nesting === -1 && !token.hidden) stack.pop();
    if (token.type !== 'inline' || token.children?.[0]?.type !== 'html_inline') continue;
    const html = token.children[0].content;
    if (!html.includes('<a ')) continue;
    const container = stack[stack.length - 1] ?? 'div';
    const paragraphClose = container === 'p' && tokens[i + 1]?.type === 'paragraph_close' ? i + 1 : null;
    found.push(...linksOf(html, token, container, stack.length, stack.includes('blockquote'), paragraphClose, found.length));
  }
  // Breadth-first, as `walk_tree_with_family`: by element level, then document order.
  return found.sort((a, b) => a.level - b.level || a.order - b.order);
}

function isVideo(url: string): boolean {
  const lower = url.toLowerCase();
  return VIDEO_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/** Zulip's `get_actual_image_url`: GitHub `blob` pages → raw.githubusercontent.com. */
function actualImageUrl(url: string): string {
  const { netloc, path } = split(url);
  if (netloc === 'github.com' || netloc.endsWith('.github.com')) {
    const parts = path.split('/');
    if (parts.length > 3 && parts[3] === 'blob') return 'https://raw.githubusercontent.com' + [...parts.slice(0, 3), ...parts.slice(4)].join('/');
  }
  return url;
}

/** Zulip's `corrected_image_source` (Wikipedia file pages, linx.li), or null. */
function correctedImageSource(url: string): string | null {
  const { netloc, path } = split(url);
  if (netloc.toLowerCase().endsWith('.wikipedia.org') && path.startsWith('/wiki/File:')) return url.replace('/wiki/File:', '/wiki/Special:FilePath/File:');
  if (netloc === 'linx.li') return 'https://linx.li/s' + path;
  return null;
}

/** A relative URL or one on the realm's own host is served by us (no camo; Zulip's `is_static_or_current_realm_url`). */
function isLocal(url: string, realmUrl: string | undefined): boolean {
  const { netloc } = split(url);
  if (netloc === '') return true;
  return realmUrl !== undefined && netloc.toLowerCase() === split(realmUrl).netloc.toLowerCase();
}

/** The previews of one message, in Zulip's placement (see the module header). */
function buildPreviews(state: StateCore): void {
  const env = state.env as unknown as RenderEnv;
  const zulip = env.zulip;
  if (zulip === undefined || zulip.inlineImagePreview === false) return;
  const found = collectLinks(state.tokens);
  if (found.length === 0) return;
  const previewable = new Set(found.filter((f) => !f.inBlockquote).map((f) => f.url));
  if (previewable.size > PREVIEW_LIMIT) return;

  const afterParagraph = new Map<number, string[]>();
  const atEnd: string[] = [];
  const itemAppend = new Map<Token, string[]>();
  const removeParagraphs = new Set<number>();
  const removeLinks: FoundLink[] = [];
  const processed = new Set<string>();
  const uploadPath = (url: string) => (url.startsWith('/user_uploads/') ? url.slice('/user_uploads/'.length) : null);

  for (const link of found) {
    if (!previewable.has(link.url) || processed.has(link.url)) continue;
    processed.add(link.url);
    let url = link.url;
    let text = link.text;
    let html: ((title: string | null) => string) | null = null;
    if (isVideo(url)) {
      const src = isLocal(url, env.realmUrl) || zulip.camo === undefined ? url : camoUrl(url, zulip.camo);
      const original = src === url ? '' : ` data-video-original-url="${escapeAttr(url)}"`;
      html = (title: string | null) =>
        `<div class="message_inline_image message_inline_video"><a href="${escapeAttr(url)}"${title ? ` title="${escapeAttr(title)}"` : ''}>` +
        `<video${original} preload="metadata" src="${escapeAttr(src)}"></video></a></div>`;
    } else {
      const { netloc, path } = split(url);
      const upload = uploadPath(url);
      const preview = upload === null ? undefined : zulip.uploadPreview?.(upload);
      const image = netloc !== 'pasteboard.co' && (upload !== null ? preview !== undefined : IMAGE_EXTENSIONS.some((ext) => path.toLowerCase().endsWith(ext)));
      if (image) {
        const corrected = correctedImageSource(url);
        if (corrected !== null) {
          url = corrected;
          text = corrected;
        }
        const imageUrl = actualImageUrl(url);
        const img = preview !== undefined
          ? uploadImg(preview)
          : `<img data-src-fullsize="${escapeAttr(`/thumbnail?url=${quotePlus(imageUrl)}&size=full`)}" src="${escapeAttr(`/thumbnail?url=${quotePlus(imageUrl)}&size=thumbnail`)}">`;
        const href = url;
        html = (title: string | null) => `<div class="message_inline_image"><a href="${escapeAttr(href)}"${title !== null ? ` title="${escapeAttr(title)}"` : ''}>${img}</a></div>`;
      }
    }
    if (html === null) continue;
    // get_inlining_information: a named link ([text](url)) keeps its text as the title.
    const urlEqText = text === null || url === text;
    const title = urlEqText ? null : text;
    const markup = html(title);
    if (link.parentTag === 'li') {
      const list = itemAppend.get(link.inline) ?? [];
      list.push(markup);
      itemAppend.set(link.inline, list);
      if (link.parentNoText && link.noTail && urlEqText && link.start === 0) removeLinks.push(link);
    } else if (link.parentTag === 'p' && link.paragraphClose !== null) {
      const list = afterParagraph.get(link.paragraphClose) ?? [];
      list.push(markup);
      afterParagraph.set(link.paragraphClose, list);
      if (link.parentChildren === 1 && link.parentNoText && link.noTail && urlEqText) removeParagraphs.add(link.paragraphClose);
    } else {
      atEnd.push(markup);
    }
  }

  // Apply: bare links in list items go, previews join the item, then the block-level previews.
  for (const link of removeLinks) {
    const child = link.inline.children![0]!;
    child.content = child.content.slice(0, link.start) + child.content.slice(link.end);
  }
  for (const [inline, list] of itemAppend) inline.children![0]!.content += list.join('');
  const out: Token[] = [];
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (removeParagraphs.has(i + 2) && token.type === 'paragraph_open') {
      i += 2;
      out.push(block(state, afterParagraph.get(i)!, token.level));
      continue;
    }
    out.push(token);
    const list = afterParagraph.get(i);
    if (list !== undefined) out.push(block(state, list, token.level));
  }
  if (atEnd.length > 0) out.push(block(state, atEnd, 0));
  state.tokens = out;
}

/** An `html_block` token holding preview markup (no trailing newline: Zulip's new elements have no tail). */
function block(state: StateCore, html: string[], level: number): Token {
  const token = new state.Token('html_block', '', 0);
  token.content = html.join('');
  token.level = level;
  return token;
}

/** Inline image and video previews (runs after the inline patterns). */
export const inlinePreviewsPlugin: MarkdownPlugin = {
  name: 'inline_previews',
  afterInline: buildPreviews,
};
