/**
 * The browser app's built files (`npm run build` writes them to `dist/webapp/`): `index.html` is
 * the app shell (served by the `/` page once logged in), every other file is served at
 * `/static/<name>`. Asset names carry a content hash, so they are cached for a year as
 * `immutable` (Zulip serves its webpack bundles the same way); an unknown name is a 404.
 *
 * Files are read once and kept in memory with their gzip and brotli forms (compressed on first
 * request, by the client's `Accept-Encoding`: br, then gzip, else identity). A rebuilt file (other
 * size or mtime) is reloaded. Only regular files inside the directory are served: `..`, absolute
 * paths, backslashes, NUL and dot-files are refused.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import mime from 'mime-types';

/** URL prefix of the app's assets. */
export const STATIC_PREFIX = '/static/';

/** `Cache-Control` of hashed assets: one year, never revalidated. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/** Smallest body worth compressing (bytes). */
const MIN_COMPRESS_BYTES = 1024;

/** One file ready to send. */
export interface StaticFile {
  readonly body: Buffer;
  readonly contentType: string;
  /** `br`, `gzip`, or null for the identity encoding. */
  readonly encoding: 'br' | 'gzip' | null;
}

interface CachedFile {
  readonly size: number;
  readonly mtimeMs: number;
  readonly raw: Buffer;
  readonly contentType: string;
  gzip?: Buffer;
  br?: Buffer;
}

/** The compression a client accepts, best first (q=0 honoured; no header = identity). */
export function preferredEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (acceptEncoding === undefined) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (token !== undefined && token !== '') accepted.add(token);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

/** The built app in `dir` (normally `<repo>/dist/webapp`). */
export class StaticAssets {
  private readonly root: string;
  private readonly cache = new Map<string, CachedFile>();

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  /** The app shell's HTML, or null while the app is not built. */
  shell(): string | null {
    const file = this.load('index.html');
    return file === null ? null : file.raw.toString('utf8');
  }

  /**
   * The asset for a `/static/<name>` URL path (still percent-encoded), in the best encoding the
   * client accepts; null when there is no such file (or the name is refused).
   */
  asset(urlPath: string, acceptEncoding: string | undefined): StaticFile | null {
    if (!urlPath.startsWith(STATIC_PREFIX)) return null;
    let name: string;
    try {
      name = decodeURIComponent(urlPath.slice(STATIC_PREFIX.length));
    } catch {
      return null;
    }
    if (name === 'index.html' || !isSafeName(name)) return null;
    const file = this.load(name);
    if (file === null) return null;
    const wanted = file.raw.length >= MIN_COMPRESS_BYTES && isCompressible(file.contentType) ? preferredEncoding(acceptEncoding) : null;
    if (wanted === 'br') {
      file.br ??= brotliCompressSync(file.raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9 } });
      return { body: file.br, contentType: file.contentType, encoding: 'br' };
    }
    if (wanted === 'gzip') {
      file.gzip ??= gzipSync(file.raw, { level: 9 });
      return { body: file.gzip, contentType: file.contentType, encoding: 'gzip' };
    }
    return { body: file.raw, contentType: file.contentType, encoding: null };
  }

  /** Reads `name` (relative to the root), reusing the cached copy while size and mtime match. */
  private load(name: string): CachedFile | null {
    const path = join(this.root, name);
    if (!path.startsWith(this.root + sep)) return null;
    let stat;
    try {
      stat = statSync(path);
    } catch {
      this.cache.delete(name);
      return null;
    }
    if (!stat.isFile()) return null;
    const cached = this.cache.get(name);
    if (cached !== undefined && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) return cached;
    const raw = readFileSync(path);
    const type = mime.contentType(name.slice(name.lastIndexOf('/') + 1)) || 'application/octet-stream';
    const file: CachedFile = { size: stat.size, mtimeMs: stat.mtimeMs, raw, contentType: type };
    this.cache.set(name, file);
    return file;
  }
}

/** A relative name of plain segments: no `..`/`.`/dot-files, backslashes, NUL or empty segments. */
function isSafeName(name: string): boolean {
  if (name === '' || name.length > 255 || /[\\\0]/.test(name)) return false;
  return name.split('/').every((seg) => seg !== '' && !seg.startsWith('.'));
}

/** Text-like types compress; images and fonts (woff2, png) are already compressed. */
function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/(javascript|json|xml|wasm)|image\/svg\+xml|font\/(ttf|otf))/.test(contentType);
}
