/**
 * Rendering large messages on a worker thread before their command enters the realm actor's
 * mailbox (issue 12: a realm's actor must never be blocked by one render for more than a few ms at
 * max_message_length; 10,000 characters of list items cost ~8 ms in markdown-it alone).
 *
 * 1. `prerenderContent` (api layer, before `realm.execute`): contents of at least
 *    {@link OFFLOAD_MIN_CHARS} characters are rendered by the pool (render-pool.ts) from a plain-data
 *    copy of the sender's render context (markdown/context-snapshot.ts). The worker reports every
 *    lookup it made; lookups missing from the copy are answered from the realm state and the render
 *    repeats (at most {@link MAX_ROUNDS} times). A linear pre-scan of the content answers the usual
 *    mention, channel and emoji lookups up front, so most contents take one round.
 * 2. `verifyPrerendered` (inside the command's `decide`, `message-render.ts`): each recorded lookup
 *    is asked again against the state the command is decided on (O(lookups)); when every answer,
 *    the context's data fields, the content and the sender are the same, the worker's HTML is what
 *    an in-thread render would give there, byte for byte, and is used. Otherwise (a user renamed
 *    meanwhile, a render that read the clock for `<time:…>`, a worker failure) `decide` renders
 *    in-thread as it always did. Commands keep their mailbox order: the render happens before.
 */
import type { RealmState } from '../domain/realm-state.js';
import { normalizeContent } from '../domain/messages.js';
import type { RenderFindings, ZulipRenderContext } from '../markdown/context.js';
import {
  askLookup,
  contextScalars,
  LOOKUP_METHODS,
  lookupKey,
  type ContextSnapshot,
  type LookupCall,
  type LookupMethod,
} from '../markdown/context-snapshot.js';
import type { PlainFindings } from '../markdown/render-worker.js';
import { renderPlainText } from '../markdown/plain-text.js';
import { renderContext } from './render-context.js';
import { renderPool, type RenderPool } from './render-pool.js';
import { renderOffloads } from '../metrics.js';

/**
 * Contents shorter than this (UTF-16 code units) render in-thread: at most ~2.5 ms even for the
 * costliest patterns of bench/render-adversarial.ts (~1.2 ms per 1,000 characters), and a small
 * send keeps its fast path (no thread hop).
 */
export const OFFLOAD_MIN_CHARS = 2000;
/** Worker renders per content at most (each round answers the lookups the previous one missed). */
export const MAX_ROUNDS = 3;
/** Lookups the pre-scan answers at most (more are answered by a later round if the render makes them). */
const MAX_PRESCAN_LOOKUPS = 2000;

/** A worker's render and what it depends on: the context's shape and data, and every lookup with its answer. */
export interface OffThreadRender {
  /** The realm URL the render used (`''` = none). */
  realmUrl: string;
  /** The lookup methods the context had. */
  methods: string;
  /** JSON of the context's data fields (linkifiers, camo, emoticon setting…). */
  scalarsJson: string;
  /** Every lookup the render made and the JSON of its answer. */
  checks: ReadonlyArray<{ call: LookupCall; answerJson: string | undefined }>;
  /** When the render read the clock (`<time:…>`): the UTC day it read ({@link clockDay}); else null. */
  clockDay: number | null;
  result: { kind: 'rendered'; html: string; findings: PlainFindings } | { kind: 'over_budget' };
}

/** A worker's render of one message content; carried by the command to `decide`. */
export interface PrerenderedContent extends OffThreadRender {
  /** The exact content rendered (after `normalizeContent`). */
  content: string;
  senderId: number;
}

/** The rendering a verified pre-render stands for: HTML and findings, or the budget error. */
export type VerifiedRendering = { kind: 'rendered'; html: string; findings: RenderFindings } | { kind: 'over_budget' };

/** The context to render with, as of now (called once per round), and the realm URL (`''` = none). */
export type ContextSource = () => { context: ZulipRenderContext; realmUrl: string };

/**
 * What of the clock a render can depend on: the UTC day (days since the epoch) of `nowSeconds`
 * (UNIX seconds). Only `<time:…>` reads the clock, for the date fields its text leaves out
 * (markdown/plugins/timestamp.ts, after dateutil's default of today's date).
 */
export function clockDay(nowSeconds: number): number {
  return Math.floor(nowSeconds / 86_400);
}

const methodsOf = (ctx: object): LookupMethod[] =>
  LOOKUP_METHODS.filter((m) => typeof (ctx as Record<string, unknown>)[m] === 'function');

/**
 * The lookups the usual syntax in `content` will make: `@**name**`, `@**name|id**`, `@*group*`,
 * `#**channel**`, `#**channel>topic**` and `:emoji:`. One linear regex pass; a superset or a subset
 * of what the render asks is fine (missed lookups cost a round, extra ones a table entry).
 */
function prescanLookups(content: string): LookupCall[] {
  const calls: LookupCall[] = [];
  const seen = new Set<string>();
  const add = (call: LookupCall) => {
    const key = lookupKey(call);
    if (seen.has(key) || calls.length >= MAX_PRESCAN_LOOKUPS) return;
    seen.add(key);
    calls.push(call);
  };
  for (const m of content.matchAll(/([@#])_?(\*\*?)([^*\n]{1,200}?)\2|:([^:\s]{1,100}):/g)) {
    if (m[4] !== undefined) {
      add({ method: 'realmEmoji', args: [m[4]] });
    } else if (m[1] === '@' && m[2] === '*') {
      add({ method: 'groupByName', args: [m[3]!] });
    } else if (m[1] === '@') {
      const id = /^(?:(.+)\|)?(\d+)$/.exec(m[3]!);
      if (id !== null) add({ method: 'userById', args: [Number(id[2])] });
      else add({ method: 'usersByFullName', args: [m[3]!] });
    } else if (m[2] === '**') {
      const gt = m[3]!.indexOf('>');
      add({ method: 'streamByName', args: [gt < 0 ? m[3]! : m[3]!.slice(0, gt)] });
    }
  }
  return calls;
}

/**
 * Renders `content` on the pool with the context `source` gives (asked afresh each round).
 * Returns `undefined` — render in-thread — on a worker failure or lookups still missing after
 * {@link MAX_ROUNDS}. Never rejects.
 */
export async function renderOffThread(source: ContextSource, content: string, pool: RenderPool = renderPool()): Promise<OffThreadRender | undefined> {
  const answers = new Map<string, unknown>();
  let pending = prescanLookups(content);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { context, realmUrl } = source();
    for (const call of pending) answers.set(lookupKey(call), askLookup(context, call));
    const methods = methodsOf(context);
    const snapshot: ContextSnapshot = { methods, answers, scalars: contextScalars(context), nowSeconds: context.nowSeconds };
    const out = await pool.render({ content, ...(realmUrl !== '' && { realmUrl }), context: snapshot });
    if (out === undefined) return undefined;
    if (out.missed.length > 0) {
      pending = out.missed;
      continue;
    }
    return {
      realmUrl,
      methods: methods.join(','),
      scalarsJson: JSON.stringify(snapshot.scalars),
      checks: out.used.map((call) => ({ call, answerJson: JSON.stringify(answers.get(lookupKey(call))) })),
      clockDay: out.readNow ? clockDay(context.nowSeconds) : null,
      result: out.kind === 'rendered' ? { kind: 'rendered', html: out.html, findings: out.findings } : { kind: 'over_budget' },
    };
  }
  return undefined;
}

/**
 * Renders a message's `content` for `senderId` off the thread against `realm.state` (read afresh
 * each round); `undefined` for contents under {@link OFFLOAD_MIN_CHARS}, plain text (rendered
 * in-thread by markdown/plain-text.ts in linear time) and whatever
 * {@link renderOffThread} gives up on. `nowSeconds` (UNIX seconds): the copy's clock; a render that
 * reads it is used only by a command decided on the same UTC day.
 */
export async function prerenderContent(
  realm: { readonly state: RealmState },
  senderId: number,
  content: string,
  nowSeconds: number,
  pool?: RenderPool,
): Promise<PrerenderedContent | undefined> {
  if (content.length < OFFLOAD_MIN_CHARS) return undefined;
  // Plain text renders in-thread in linear time (markdown/plain-text.ts): no thread hop.
  if (renderPlainText(content, realm.state.linkifiers?.items ?? []) !== undefined) return undefined;
  const source: ContextSource = () => ({ context: renderContext(realm.state, senderId, nowSeconds), realmUrl: realm.state.url });
  const render = await renderOffThread(source, content, pool);
  if (render === undefined) renderOffloads.inc({ outcome: 'in_thread' });
  return render && { ...render, content, senderId };
}

/**
 * {@link prerenderContent} of a message's raw content as sending and editing normalize it
 * (domain/messages.ts `normalizeContent`); `undefined` for content they refuse.
 */
export async function prerenderRawContent(
  realm: { readonly state: RealmState },
  senderId: number,
  raw: string,
  nowSeconds: number,
  pool?: RenderPool,
): Promise<PrerenderedContent | undefined> {
  if (raw.length < OFFLOAD_MIN_CHARS) return undefined;
  const normalized = normalizeContent(raw);
  return normalized.ok ? prerenderContent(realm, senderId, normalized.content, nowSeconds, pool) : undefined;
}

/**
 * The off-thread render's outcome if it is exactly what rendering with `context` and `realmUrl`
 * would give, else null. Cost: one JSON of the context's data fields and one lookup per recorded lookup.
 */
export function verifyOffThreadRender(render: OffThreadRender, context: ZulipRenderContext, realmUrl: string): VerifiedRendering | null {
  if (render.realmUrl !== realmUrl || methodsOf(context).join(',') !== render.methods) return null;
  if (JSON.stringify(contextScalars(context)) !== render.scalarsJson) return null;
  if (render.clockDay !== null && clockDay(context.nowSeconds) !== render.clockDay) return null;
  for (const { call, answerJson } of render.checks) if (JSON.stringify(askLookup(context, call)) !== answerJson) return null;
  if (render.result.kind === 'over_budget') return render.result;
  const f = render.result.findings;
  return {
    kind: 'rendered',
    html: render.result.html,
    findings: {
      mentionedUserIds: new Set(f.mentionedUserIds),
      mentionedGroupIds: new Set(f.mentionedGroupIds),
      streamWildcard: f.streamWildcard,
      topicWildcard: f.topicWildcard,
    },
  };
}

/**
 * The pre-render's outcome if it is exactly what rendering `content` for `senderId` in `state` at
 * `nowSeconds` (UNIX seconds, the command's clock) would give, else null (then render in-thread).
 */
export function verifyPrerendered(
  state: RealmState,
  pre: PrerenderedContent,
  content: string,
  senderId: number,
  nowSeconds: number,
): VerifiedRendering | null {
  if (pre.content !== content || pre.senderId !== senderId) return null;
  return verifyOffThreadRender(pre, renderContext(state, senderId, nowSeconds), state.url);
}
