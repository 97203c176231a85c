/**
 * A render context as plain data, for rendering off the realm actor's thread (issue 12: no render
 * blocks a realm's actor for more than a few ms). A worker thread cannot see `RealmState`, so the
 * realm's side turns a {@link ZulipRenderContext} into a {@link ContextSnapshot}: its scalar fields
 * (linkifiers, camo, emoticon setting, now) and a table of lookup answers (`userById(7)` → …). The
 * worker renders with {@link snapshotContext}, which answers from the table and records which
 * lookups the render made (with their arguments), which it missed, and whether it read the clock.
 *
 * A render is a deterministic function of its content, options and the answers to the lookups it
 * makes, so when every recorded lookup gives the same answer against the state a command is decided
 * on, the worker's HTML is byte-identical to an in-thread render there (see realm/render-offload.ts).
 */
import type { ZulipRenderContext } from './context.js';

/** Names of the context's lookup methods (every function-valued field but none of the data fields). */
export type LookupMethod = {
  [K in keyof ZulipRenderContext]-?: NonNullable<ZulipRenderContext[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof ZulipRenderContext];

/** Every lookup method, once (a missing or extra name fails `tsc` through the record below). */
const METHOD_SET: Record<LookupMethod, true> = {
  userById: true,
  usersByFullName: true,
  groupByName: true,
  streamByName: true,
  streamById: true,
  topicLatestMessageId: true,
  realmEmoji: true,
  uploadPreview: true,
};
export const LOOKUP_METHODS = Object.keys(METHOD_SET) as readonly LookupMethod[];

/** One lookup: the method and its arguments (numbers and strings only). */
export interface LookupCall {
  method: LookupMethod;
  args: ReadonlyArray<string | number>;
}

/** The data fields of a context (everything but lookups, the clock and the findings). */
export type ContextScalars = Omit<ZulipRenderContext, LookupMethod | 'out' | 'nowSeconds'>;

/** A render context as structured-clonable data. */
export interface ContextSnapshot {
  /** The lookup methods the real context has (optional ones may be absent). */
  methods: readonly LookupMethod[];
  /** Lookup key ({@link lookupKey}) → the real context's answer. */
  answers: Map<string, unknown>;
  scalars: ContextScalars;
  /** UNIX seconds (the context's `nowSeconds`). */
  nowSeconds: number;
}

/** The table key of a lookup. */
export function lookupKey(call: LookupCall): string {
  return `${call.method}\u0000${call.args.map((a) => `${typeof a === 'number' ? 'n' : 's'}${a}`).join('\u0000')}`;
}

/** The scalar fields of `ctx` (a copy, without lookups, clock and findings). */
export function contextScalars(ctx: ZulipRenderContext): ContextScalars {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx)) {
    if (k === 'out' || k === 'nowSeconds' || typeof v === 'function') continue;
    out[k] = v;
  }
  return out as unknown as ContextScalars;
}

/** Asks `ctx` one lookup (its answer; `undefined` when the context lacks the method). */
export function askLookup(ctx: ZulipRenderContext, call: LookupCall): unknown {
  const fn = ctx[call.method] as ((...args: ReadonlyArray<string | number>) => unknown) | undefined;
  return fn === undefined ? undefined : fn.apply(ctx, [...call.args]);
}

/** What a render through {@link snapshotContext} asked for. */
export interface SnapshotUse {
  /** Lookups answered from the table, each once. */
  used: LookupCall[];
  /** Lookups missing from the table (the render is then not trustworthy), each once. */
  missed: LookupCall[];
  /** Whether the render read `nowSeconds` (then it depends on the clock). */
  readNow: boolean;
}

/** The answer a missed lookup gets so the render can go on (its result is discarded anyway). */
const MISS_ANSWER: Partial<Record<LookupMethod, unknown>> = { usersByFullName: [] };

/**
 * A render context answering from `snapshot`, and the record of its use. Findings start empty.
 */
export function snapshotContext(snapshot: ContextSnapshot): { context: ZulipRenderContext; use: SnapshotUse } {
  const use: SnapshotUse = { used: [], missed: [], readNow: false };
  const seen = new Set<string>();
  const context = {
    ...snapshot.scalars,
    out: { mentionedUserIds: new Set<number>(), mentionedGroupIds: new Set<number>(), streamWildcard: false, topicWildcard: false },
  } as ZulipRenderContext;
  Object.defineProperty(context, 'nowSeconds', {
    enumerable: true,
    get() {
      use.readNow = true;
      return snapshot.nowSeconds;
    },
  });
  for (const method of snapshot.methods) {
    (context as unknown as Record<string, unknown>)[method] = (...args: Array<string | number>): unknown => {
      const call: LookupCall = { method, args };
      const key = lookupKey(call);
      const known = snapshot.answers.has(key);
      if (!seen.has(key)) {
        seen.add(key);
        (known ? use.used : use.missed).push(call);
      }
      return known ? snapshot.answers.get(key) : MISS_ANSWER[method];
    };
  }
  return { context, use };
}
