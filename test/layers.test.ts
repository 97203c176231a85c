/**
 * The layer rules of the source tree (src/README.md "Layers"): every import in src/**\/*.ts is
 * parsed (static, type-only, re-exports, dynamic and `import('…')` types alike, with
 * TypeScript's own `preProcessFile`) and checked against which folder may import which, and which
 * folder may import the few packages whose use is confined (uWS, xstate, lmdb, argon2).
 *
 * A violation fails with the file, the import and the rule. The exceptions below are the only
 * ones allowed; each says why it exists and what removes it.
 *
 * Also checked: what runs inside a command (domain/, markdown/, realm/handlers/) is pure: no wall
 * clock, no randomness, no file reads (time and ids come from the command context, data is
 * loaded at start-up), so replay and tests are deterministic.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * Which folders of src/ each folder may import (besides itself and the shared leaf modules).
 * Direction: http → api → realm → domain; realm → events, markdown, storage, auth; events,
 * markdown, storage and auth sit on domain; domain imports no other layer.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  domain: [],
  markdown: ['domain'],
  storage: ['domain'],
  events: ['domain'],
  auth: ['domain'],
  realm: ['domain', 'events', 'markdown', 'storage', 'auth', 'mail'],
  api: ['realm', 'domain', 'events', 'auth', 'mail'],
  http: ['api', 'auth'],
  // Command-line subcommands beside the server (cli.ts passes them the parsed configuration).
  cli: ['realm', 'http', 'domain'],
  // Operations (health, backups, start-up checks, the request log): used by the entry points.
  ops: ['storage', 'http', 'domain'],
  // Outbound mail (the SMTP / outbox queue): a leaf service beside storage, used by api/ and realm/.
  mail: ['storage'],
  // The browser app (bundled by esbuild, never imported by server code): it talks to the server
  // only over HTTP, so it imports no other folder.
  webapp: [],
};

/**
 * Top-level modules every layer may import: the error registry, the version constants, and the
 * process-wide logger and metrics (any layer logs and counts; they import nothing of src/).
 */
const SHARED_LEAVES = new Set(['errors.ts', 'version.ts', 'log.ts', 'metrics.ts']);
/** Entry points: may import anything; nothing may import them. `config.ts` is theirs alone. */
const ENTRY_POINTS = new Set(['main.ts', 'cli.ts']);
const ENTRY_ONLY = new Set(['config.ts', ...ENTRY_POINTS]);

/** Packages only one place may import (src/README.md: only http/ touches uWS, only the actor xstate...). */
const CONFINED_PACKAGES: ReadonlyArray<{ pkg: RegExp; allowed: (file: string) => boolean; rule: string }> = [
  { pkg: /^uWebSockets\.js$/, allowed: (f) => f.startsWith('http/'), rule: 'only http/ imports uWebSockets.js' },
  { pkg: /^xstate(\/|$)/, allowed: (f) => f === 'realm/realm-actor.ts', rule: 'only realm/realm-actor.ts imports xstate' },
  { pkg: /^lmdb$/, allowed: (f) => f.startsWith('storage/'), rule: 'only storage/ imports lmdb' },
  { pkg: /^@node-rs\/argon2$/, allowed: (f) => f === 'auth/passwords.ts', rule: 'only auth/passwords.ts imports argon2' },
  {
    pkg: /^node:(?!crypto$)/,
    allowed: (f) => !f.startsWith('domain/'),
    rule: 'domain/ does no I/O: no node: module but node:crypto (hashing)',
  },
];

/**
 * The remaining exceptions, `importer → imported` (paths relative to src/), each with its reason.
 * Keep this list short: fix the layering instead of adding to it.
 */
export const EXCEPTIONS: ReadonlyArray<{ from: string; to: string; reason: string }> = [
  {
    from: 'http/websocket.ts',
    to: 'events/event-queues.ts',
    reason: 'the WebSocket route is handed the event-queue manager (a type) to pass on to api/event-socket.ts',
  },
];

/** One import of one file: importer and specifier, both as written in src/. */
export interface ImportEdge {
  /** Importing file, relative to src/ with `/` separators (`domain/evolve.ts`). */
  from: string;
  /** The specifier as written (`../events/realm-event.js`, `lmdb`). */
  specifier: string;
}

/** `.js` specifiers name the `.ts` source (NodeNext style); the target relative to src/. */
function targetOf(edge: ImportEdge): string {
  const abs = resolve(SRC, dirname(edge.from), edge.specifier);
  return relative(SRC, abs).split(sep).join('/').replace(/\.js$/, '.ts');
}

const layerOf = (path: string): string | null => (path.includes('/') ? path.slice(0, path.indexOf('/')) : null);

function excepted(from: string, to: string): boolean {
  return EXCEPTIONS.some((e) => e.from === from && (e.to.endsWith('/') ? to.startsWith(e.to) : to === e.to));
}

/** The rule an import breaks, or null when it is allowed. */
export function violation(edge: ImportEdge): string | null {
  const { from, specifier } = edge;
  if (!specifier.startsWith('.')) {
    const confined = CONFINED_PACKAGES.find((c) => c.pkg.test(specifier) && !c.allowed(from));
    return confined === undefined ? null : confined.rule;
  }
  const to = targetOf(edge);
  if (to.startsWith('..')) return 'src/ imports nothing outside src/';
  if (excepted(from, to)) return null;
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (fromLayer === null) {
    if (ENTRY_POINTS.has(from)) return null;
    if (toLayer !== null || !SHARED_LEAVES.has(to)) return `${from} is a shared leaf module: it imports no other module of src/`;
    return null;
  }
  if (toLayer === null) {
    if (SHARED_LEAVES.has(to)) return null;
    return ENTRY_ONLY.has(to) ? `only the entry points import ${to}` : `${to} is not a shared module`;
  }
  if (fromLayer === toLayer) return null;
  const allowed = MAY_IMPORT[fromLayer];
  if (allowed === undefined) return `${fromLayer}/ is not a known layer: add it to MAY_IMPORT (and src/README.md)`;
  return allowed.includes(toLayer) ? null : `${fromLayer}/ may import only ${allowed.length ? allowed.join(', ') : 'nothing else'}, not ${toLayer}/`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') || e.name.endsWith('.tsx') ? [path] : [];
  });
}

/** Every import of every .ts / .tsx file under src/. */
function allImports(): ImportEdge[] {
  return sourceFiles(SRC).flatMap((file) => {
    const from = relative(SRC, file).split(sep).join('/');
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    return importedFiles.map((f) => ({ from, specifier: f.fileName }));
  });
}

t.test('the rule checker flags what it must (synthetic imports)', async (t) => {
  const bad: ImportEdge[] = [
    { from: 'domain/streams.ts', specifier: '../events/realm-event.js' },
    { from: 'domain/streams.ts', specifier: '../markdown/render.js' },
    { from: 'domain/streams.ts', specifier: '../realm/commands.js' },
    { from: 'domain/streams.ts', specifier: 'node:fs' },
    { from: 'markdown/render.ts', specifier: '../realm/demo-realm.js' },
    { from: 'events/dispatch.ts', specifier: '../realm/realm-actor.js' },
    { from: 'realm/handlers/x.ts', specifier: '../../api/registry.js' },
    { from: 'api/messages.ts', specifier: '../storage/lmdb.js' },
    { from: 'api/messages.ts', specifier: '../http/server.js' },
    { from: 'api/messages.ts', specifier: '../config.js' },
    { from: 'realm/realm-registry.ts', specifier: 'lmdb' },
    { from: 'api/registry.ts', specifier: 'uWebSockets.js' },
    { from: 'realm/handlers/x.ts', specifier: 'xstate' },
    { from: 'api/auth.ts', specifier: '@node-rs/argon2' },
    { from: 'errors.ts', specifier: './domain/streams.js' },
    { from: 'domain/message-render.ts', specifier: '../events/realm-event.js' },
    { from: 'webapp/app/state.ts', specifier: '../../domain/users.js' },
    { from: 'api/messages.ts', specifier: '../webapp/app/narrow.js' },
  ];
  for (const edge of bad) t.not(violation(edge), null, `${edge.from} → ${edge.specifier} is refused`);
  const good: ImportEdge[] = [
    { from: 'realm/handlers/x.ts', specifier: '../../domain/streams.js' },
    { from: 'realm/handlers/x.ts', specifier: '../../events/realm-event.js' },
    { from: 'realm/handlers/x.ts', specifier: '../../errors.js' },
    { from: 'markdown/plugins/emoji.ts', specifier: '../../domain/emoji.js' },
    { from: 'domain/users.ts', specifier: 'node:crypto' },
    { from: 'realm/message-render.ts', specifier: '../markdown/render.js' },
    { from: 'main.ts', specifier: './http/server.js' },
    { from: 'storage/lmdb.ts', specifier: 'lmdb' },
  ];
  for (const edge of good) t.equal(violation(edge), null, `${edge.from} → ${edge.specifier} is allowed`);
});

t.test('no import in src/ runs against the layer rules', async (t) => {
  const edges = allImports();
  t.ok(edges.length > 500, `parsed ${edges.length} imports`);
  const broken = edges.flatMap((edge) => {
    const rule = violation(edge);
    return rule === null ? [] : [`src/${edge.from} imports ${edge.specifier}: ${rule}`];
  });
  t.same(broken, [], 'layer violations');
  // An exception nothing needs any more is reported, not failed: the branch that removes the
  // need (e.g. moving message-render.ts) deletes the entry in the same change.
  for (const e of EXCEPTIONS) {
    const used = edges.some((edge) => edge.specifier.startsWith('.') && edge.from === e.from && excepted(edge.from, targetOf(edge)));
    if (!used) t.comment(`layer exception ${e.from} → ${e.to} is no longer needed: remove it`);
  }
});

/** Calls that make a function impure, as they appear in source. `new Date(x)` (a conversion) is fine. */
const IMPURE = [
  { re: /\bDate\.now\s*\(/, what: 'Date.now()' },
  { re: /\bnew Date\s*\(\s*\)/, what: 'new Date()' },
  { re: /\bperformance\.now\s*\(/, what: 'performance.now()' },
  { re: /\bMath\.random\s*\(/, what: 'Math.random()' },
  { re: /\b(?:readFileSync|readFile|existsSync|readdirSync|statSync)\s*\(/, what: 'a file read' },
];

/** Folders whose code runs inside a command; the conformance runner is a CLI tool, not a handler. */
const PURE_ROOTS = ['domain', 'markdown', 'realm/handlers'];
const PURE_EXEMPT = new Set(['markdown/conformance.ts']);

/** Source without comments (block, line) and with string contents blanked, so prose never matches. */
function codeOnly(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:\\])\/\/.*$/gm, '$1')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");
}

/** The impure calls in one file's source, as `what` strings. */
export function impureCalls(text: string): string[] {
  const code = codeOnly(text);
  return IMPURE.filter((p) => p.re.test(code)).map((p) => p.what);
}

t.test('the purity check flags what it must (synthetic sources)', async (t) => {
  t.same(impureCalls('const t = Date.now();'), ['Date.now()']);
  t.same(impureCalls('const d = new Date();'), ['new Date()']);
  t.same(impureCalls('x = Math.random() * 2; readFileSync(p, "utf8")'), ['Math.random()', 'a file read']);
  t.same(impureCalls('const d = new Date(ms); // Date.now() in a comment\n/* Math.random() */ s = "Date.now()"'), []);
});

t.test('code that runs inside a command reads no clock, randomness or files', async (t) => {
  const impure = PURE_ROOTS.flatMap((root) =>
    sourceFiles(join(SRC, root)).flatMap((file) => {
      const rel = relative(SRC, file).split(sep).join('/');
      if (PURE_EXEMPT.has(rel)) return [];
      return impureCalls(readFileSync(file, 'utf8')).map((what) => `src/${rel} calls ${what}`);
    }),
  );
  t.same(impure, [], 'impure calls');
});
