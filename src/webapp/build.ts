/**
 * Builds the browser app (`src/webapp/app/`) into `dist/webapp/`, run by `npm run build` after tsc:
 *
 * - `app-<hash>.js` and `app-<hash>.css`: one esbuild bundle (Preact + the app, KaTeX's CSS),
 *   minified, content-hashed names so the server may cache them for a year (`immutable`);
 *   KaTeX's fonts beside them as `font-<name>-<hash>.<ext>`;
 * - `emoji-<hash>.json`: Zulip's emoji names (`src/domain/emoji_names.json`, from Zulip's
 *   `zerver/lib/emoji.py` data) as `[[code, name, ...aliases], ...]`, fetched only when the
 *   reaction picker opens, so the main bundle stays small;
 * - `index.html`: no inline script or style (the page runs under `Content-Security-Policy:
 *   default-src 'self'`), references the hashed assets under `/static/`.
 *
 * Every file of `dist/webapp/` except `index.html` is served at `/static/<name>`.
 * Prints each asset's raw and gzip size, and fails when JS + CSS exceed the budget of 150 KB
 * compressed (issue 15). `--dev` skips minification.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const OUT = join(ROOT, 'dist/webapp');
/** URL prefix under which the server serves `dist/webapp/*`. */
export const STATIC_PREFIX = '/static/';
/** Budget of the app's JS + CSS, gzip-compressed (bytes): 150 KB. */
export const COMPRESSED_BUDGET_BYTES = 150 * 1000;

/** What the build produced. */
export interface WebappBuild {
  /** Asset file names (in `dist/webapp/`) of the script and the stylesheet. */
  js: string;
  css: string;
  /** gzip size (bytes) of JS + CSS together. */
  compressedBytes: number;
}

const shortHash = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex').slice(0, 12);

/** Zulip's emoji names, compacted for the picker: `[code, canonical_name, ...aliases]`. */
function emojiTable(): string {
  const names = JSON.parse(readFileSync(join(ROOT, 'src/domain/emoji_names.json'), 'utf8')) as Record<
    string,
    { canonical_name: string; aliases: string[] }
  >;
  return JSON.stringify(Object.entries(names).map(([code, e]) => [code, e.canonical_name, ...e.aliases]));
}

/** Runs the build; resolves with the asset names and the compressed size. */
export async function buildWebapp(opts: { minify?: boolean } = {}): Promise<WebappBuild> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const result = await build({
    entryPoints: { app: join(HERE, 'app/main.tsx') },
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: opts.minify ?? true,
    sourcemap: false,
    outdir: OUT,
    entryNames: '[name]-[hash]',
    assetNames: 'font-[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
    publicPath: STATIC_PREFIX.slice(0, -1),
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (js === undefined || css === undefined) throw new Error(`webapp build produced no JS or CSS: ${outputs.join(', ')}`);

  const emoji = emojiTable();
  const emojiFile = `emoji-${shortHash(emoji)}.json`;
  writeFileSync(join(OUT, emojiFile), emoji);

  writeFileSync(
    join(OUT, 'index.html'),
    readFileSync(join(HERE, 'app/index.html'), 'utf8')
      .replace('%CSS%', STATIC_PREFIX + css)
      .replace('%JS%', STATIC_PREFIX + js)
      .replace('%EMOJI%', STATIC_PREFIX + emojiFile),
  );

  let compressedBytes = 0;
  for (const file of readdirSync(OUT).sort()) {
    if (!/\.(js|css|json|html)$/.test(file)) continue;
    const data = readFileSync(join(OUT, file));
    const gz = gzipSync(data, { level: 9 }).length;
    if (file === js || file === css) compressedBytes += gz;
    console.log(`webapp: ${file.padEnd(28)} ${String(data.length).padStart(8)} B  ${String(gz).padStart(7)} B gzip`);
  }
  console.log(`webapp: JS+CSS ${compressedBytes} B gzip (budget ${COMPRESSED_BUDGET_BYTES} B)`);
  if (compressedBytes > COMPRESSED_BUDGET_BYTES) {
    throw new Error(`webapp JS+CSS is ${compressedBytes} B compressed, over the ${COMPRESSED_BUDGET_BYTES} B budget`);
  }
  return { js, css, compressedBytes };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildWebapp({ minify: !process.argv.includes('--dev') }).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
