/**
 * Full-text search benchmark (issue 17: `search:` narrows, p99 < 20 ms over 1,000,000 messages,
 * memory cost reported). In-process, no HTTP: a realm state with N synthetic channel messages
 * (folded with the real `evolve`, bodies kept in a Map as the LMDB bodies table would hand them
 * out) and the real `GET /messages` planner (`selectMessages`, newest 50, the viewer's access
 * rules) with and without the word index (src/domain/message-word-index.ts).
 *
 *     node --expose-gc --import=tsx bench/search.ts [--messages N] [--seconds S]   (standalone)
 *     npm run bench -- --only search                                             (inside the load bench)
 *
 * Reports: the index build time as a restored realm's backfill would do it (all N bodies fed in
 * id order), its heap cost (heap used before/after, after a forced GC when `--expose-gc`; plus the
 * index's own estimate), and per query (a rare word, a common word, two words, a phrase, a
 * word that occurs nowhere) p50/p99/max ms over at most `seconds` or 2,000 runs each. The scan
 * (no index) is timed for at most 3 runs per query, to show what the index saves.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { emptyRealmState, Role, type RealmState } from '../src/domain/realm-state.js';
import { evolve } from '../src/domain/evolve.js';
import { applyCommand } from '../src/realm/apply-command.js';
import type { CommandContext } from '../src/realm/decision.js';
import type { MessageBody, RealmRecord } from '../src/domain/records.js';
import { MessageWordIndex } from '../src/domain/message-word-index.js';
import { MessageBit } from '../src/domain/message-index.js';
import { LARGER_THAN_MAX_MESSAGE_ID, parseNarrow, cleanNarrow } from '../src/domain/narrow.js';
import { selectMessages } from '../src/realm/queries/message-list.js';
import { ZulipError } from '../src/errors.js';
import { prng } from './prng.js';

/** One query's figures (ms). */
export interface SearchQueryRow {
  name: string;
  query: string;
  /** Messages in the answer (at most 50). */
  found: number;
  /** Candidate ids of the rarest query word (0 without index). */
  candidates: number;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Mean ms of the same query without the index (≤ 3 runs), or null when skipped. */
  scanMeanMs: number | null;
}

/** The whole search bench. */
export interface SearchBenchReport {
  messages: number;
  /** Folding the N `message_sent` records (index fed live by evolve). */
  foldSeconds: number;
  /** Rebuilding the index from the bodies, as the backfill after a restart does. */
  buildSeconds: number;
  /** CPU (user) seconds of that rebuild: the figure a loaded machine distorts least. */
  buildCpuSeconds: number;
  /** Memory used by the index: heap + array buffers after minus before the build (GC'd when possible), bytes. */
  heapBytes: number;
  /** Whether `heapBytes` was measured after a forced GC (`--expose-gc`). */
  gcForced: boolean;
  words: number;
  postings: number;
  estimatedBytes: number;
  queries: SearchQueryRow[];
}


const COMMON = ['deploy', 'review', 'meeting', 'release', 'bug', 'fix', 'test', 'server', 'client', 'thanks'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe', 'gu', 'hi', 'jo', 'be'];
/** The rare word: in exactly RARE_COUNT messages spread over the range. */
const RARE = 'xylophone';
const RARE_COUNT = 20;

function gc(): boolean {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g === undefined) return false;
  g();
  g();
  return true;
}

const nowMs = () => performance.now();
function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Builds the realm: one channel with one subscriber, `n` messages of 6–20 words (Zipf-like vocabulary). */
function buildRealm(n: number): { state: RealmState; bodies: Map<number, MessageBody>; viewerId: number; foldSeconds: number } {
  let t = 1_700_000_000;
  let k = 0;
  const ctx: CommandContext = { now: () => t++, randomToken: (length) => String(++k).padStart(length, 'k').slice(-length) };
  const state = emptyRealmState(1);
  state.host = 'bench.example.com';
  const run = (cmd: Parameters<typeof applyCommand>[1]) => {
    const res = applyCommand(state, cmd, ctx, []);
    if (!res.ok) throw new Error(`${cmd.type}: ${res.error.message}`);
    return res.value as { userId?: number; streamId?: number };
  };
  run({ type: 'create_realm', subdomain: '', name: 'Bench', description: '' });
  const viewerId = run({ type: 'create_user', email: 'viewer@example.com', fullName: 'Viewer', role: Role.member, passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '' }).userId!;
  run({ type: 'create_channel', actorId: null, name: 'general', description: '', inviteOnly: false, isWebPublic: false, isDefault: false, subscriberIds: [viewerId] });
  const recipientId = state.streams.get(state.streamsByName.get('general')!)!.recipientId;

  const rand = prng(42);
  const vocabulary: string[] = [];
  for (let i = 0; i < 30_000; i++) {
    let w = '';
    for (let s = 0, len = 2 + (i % 3); s < len; s++) w += SYLLABLES[(i >> (s * 4)) % SYLLABLES.length]! + (s === 0 ? String.fromCharCode(97 + (i % 26)) : '');
    vocabulary.push(w);
  }
  const zipf = () => vocabulary[Math.floor(vocabulary.length * Math.pow(rand(), 3))]!;
  const rareEvery = Math.max(1, Math.floor(n / RARE_COUNT));
  const bodies = new Map<number, MessageBody>();
  const started = nowMs();
  const firstId = state.nextIds.message;
  for (let i = 0; i < n; i++) {
    const id = firstId + i;
    const words: string[] = [];
    const len = 6 + Math.floor(rand() * 15);
    for (let j = 0; j < len; j++) words.push(rand() < 0.1 ? COMMON[Math.floor(rand() * COMMON.length)]! : zipf());
    if (i % rareEvery === rareEvery - 1) words.push(RARE);
    const content = words.join(' ');
    bodies.set(id, { content, rendered: `<p>${content}</p>` });
    const record: RealmRecord = {
      type: 'message_sent', v: 1, id, senderId: viewerId, recipientId, topic: `topic ${i % 500}`, content, rendered: `<p>${content}</p>`,
      timestamp: 1_700_000_000 + i, client: 'bench', isMeMessage: false, readBySender: true,
    };
    evolve(state, record);
  }
  return { state, bodies, viewerId, foldSeconds: (nowMs() - started) / 1000 };
}

/** Runs the search bench (bounded: `seconds` per query, ≤ 2,000 runs; ≤ 3 scan runs per query). */
export function runSearchBench(opts: { messages?: number; seconds?: number; scan?: boolean } = {}): SearchBenchReport {
  const n = opts.messages ?? 1_000_000;
  const seconds = opts.seconds ?? 2;
  const { state, bodies, viewerId, foldSeconds } = buildRealm(n);
  const viewer = state.users.get(viewerId)!;

  // Rebuild the index as the post-restart backfill would, to time it and weigh it.
  delete state.wordIndex;
  const gcForced = gc();
  // Posting lists are typed arrays: their bytes are outside the JS heap (arrayBuffers).
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const heapBefore = used();
  const buildStart = nowMs();
  const buildCpu = process.cpuUsage();
  const index = new MessageWordIndex(state.messages.bits.length);
  for (let id = 1; id < index.backfillBelow; id++) {
    const exists = (state.messages.bits.get(id) & MessageBit.exists) !== 0;
    index.backfill(id, exists ? bodies.get(id)?.content : undefined, exists ? state.topics.value(state.messages.topic.get(id)) : '');
  }
  const buildSeconds = (nowMs() - buildStart) / 1000;
  const buildCpuSeconds = process.cpuUsage(buildCpu).user / 1e6;
  gc();
  const heapBytes = used() - heapBefore;
  state.wordIndex = index;
  const stats = index.stats();

  const readBody = (id: number) => bodies.get(id);
  const select = (query: string) => {
    const parsed = parseNarrow(JSON.stringify([{ operator: 'search', operand: query }]));
    if (parsed === null || parsed instanceof ZulipError) throw new Error('bad narrow');
    const cleaned = cleanNarrow(state, viewer, parsed);
    if (cleaned instanceof ZulipError) throw cleaned;
    const r = selectMessages(state, viewer, { anchor: LARGER_THAN_MAX_MESSAGE_ID, includeAnchor: false, numBefore: 50, numAfter: 0, narrow: cleaned }, readBody);
    if (r instanceof ZulipError) throw r;
    return r.ids.length;
  };
  const queries: Array<[string, string]> = [
    ['rare word', RARE],
    ['common word', 'deploy'],
    ['two common words', 'deploy review'],
    ['rare + common', `${RARE} deploy`],
    ['phrase', '"deploy review"'],
    ['absent word', 'zzzzqqq'],
  ];
  const rows: SearchQueryRow[] = [];
  for (const [name, query] of queries) {
    const times: number[] = [];
    let found = 0;
    const deadline = nowMs() + seconds * 1000;
    for (let i = 0; i < 2000 && (i < 5 || nowMs() < deadline); i++) {
      const s = nowMs();
      found = select(query);
      times.push(nowMs() - s);
    }
    times.sort((a, b) => a - b);
    let scanMeanMs: number | null = null;
    if (opts.scan !== false) {
      const saved: MessageWordIndex | undefined = state.wordIndex;
      delete state.wordIndex;
      const scanDeadline = nowMs() + 10_000;
      let total = 0;
      let runs = 0;
      for (; runs < 3 && (runs === 0 || nowMs() < scanDeadline); runs++) {
        const s = nowMs();
        select(query);
        total += nowMs() - s;
      }
      state.wordIndex = saved;
      scanMeanMs = total / runs;
    }
    const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const candidates = words.length === 0 ? 0 : Math.min(...words.map((w) => index.count(w)));
    rows.push({ name, query, found, candidates, runs: times.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: times[times.length - 1] ?? 0, scanMeanMs });
  }
  return { messages: n, foldSeconds, buildSeconds, buildCpuSeconds, heapBytes, gcForced, words: stats.words, postings: stats.postings, estimatedBytes: stats.estimatedBytes, queries: rows };
}

/** The report as text lines. */
export function formatSearchBench(r: SearchBenchReport): string {
  const mib = (b: number) => (b / 1048576).toFixed(1);
  const lines = [
    `${r.messages} messages folded in ${r.foldSeconds.toFixed(1)} s; index rebuilt from the bodies in ${r.buildSeconds.toFixed(2)} s (${r.buildCpuSeconds.toFixed(2)} s CPU) ` +
      `(${r.words} words, ${r.postings} postings): heap + array buffers +${mib(r.heapBytes)} MiB${r.gcForced ? '' : ' (no --expose-gc: rough)'}, estimate ${mib(r.estimatedBytes)} MiB`,
    'query                     found  candidates  runs  p50 ms  p99 ms  max ms  scan ms  target',
  ];
  for (const q of r.queries) {
    lines.push(
      `${q.name.padEnd(24)} ${String(q.found).padStart(6)} ${String(q.candidates).padStart(11)} ${String(q.runs).padStart(5)} ` +
        `${q.p50Ms.toFixed(2).padStart(7)} ${q.p99Ms.toFixed(2).padStart(7)} ${q.maxMs.toFixed(2).padStart(7)} ` +
        `${(q.scanMeanMs === null ? '-' : q.scanMeanMs.toFixed(0)).padStart(8)}  ${q.p99Ms < 20 ? 'OK' : 'MISS'} p99 < 20 ms`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { messages: { type: 'string' }, seconds: { type: 'string' }, 'no-scan': { type: 'boolean' } } });
  const report = runSearchBench({
    messages: values.messages === undefined ? undefined : Number(values.messages),
    seconds: values.seconds === undefined ? undefined : Number(values.seconds),
    scan: !values['no-scan'],
  });
  console.log(formatSearchBench(report));
}
