/**
 * Encodes a realm snapshot's core (domain/realm-snapshot.ts `toSnapshot`) without packing its two
 * largest parts again when they cannot have changed. `users` and `subscriptions` grow with the
 * organization (~1.8 MB and ~40 ms of packing, on the realm's thread, at 1,000 users in 10
 * channels each: bench/PROFILE.md §10) while the records of a busy realm — sends, read flags,
 * reactions, topic follows — touch neither. The packed bytes of those two parts are kept and
 * spliced into the core (codec.ts `encodeRecordFromPacked`: the same bytes as packing the whole
 * core), until a record of any other type is appended.
 *
 * Correctness rests on {@link KEEPS_USERS_AND_SUBSCRIPTIONS}, an allow-list checked against the
 * `evolve` steps of its record types; a type missing from it only costs a repack. The kept bytes
 * are also tied to the `users` and `subscriptions` Map objects they were packed from, so a state
 * replaced wholesale (a reload after a full disk) repacks.
 */
import type { RealmCore } from '../domain/realm-snapshot.js';
import type { RealmState } from '../domain/realm-state.js';
import type { RealmRecord } from '../domain/records.js';
import { encodeRecordFromPacked, packValue } from '../storage/codec.js';

/**
 * Record types whose `evolve` changes neither `state.users` (nor any User object) nor
 * `state.subscriptions` (nor any Subscription object): `messageSent` (message columns, UserMessage
 * rows, a channel's `firstMessageId`, a new direct-message recipient), `messageFlagsChanged`
 * (UserMessage flags and historical rows), `evolveReactions` (reactions, historical rows),
 * `userTopicSet` (user_topic rows). When in doubt, leave a type out.
 */
export const KEEPS_USERS_AND_SUBSCRIPTIONS: ReadonlySet<RealmRecord['type']> = new Set<RealmRecord['type']>([
  'message_sent',
  'message_flags_changed',
  'reaction_added',
  'reaction_removed',
  'user_topic_set',
]);

/** The core parts whose packing is kept. */
const KEPT_PARTS = ['users', 'subscriptions'] as const;
type KeptPart = (typeof KEPT_PARTS)[number];

interface Kept {
  /** The state Map the part was built from (`state.users` / `state.subscriptions`). */
  source: object;
  packed: Uint8Array;
}

/** One realm's core encoder; the realm actor owns it (actor-context.ts). */
export class CoreEncoder {
  private readonly kept = new Map<KeptPart, Kept>();
  /** Parts packed afresh by `encode` so far (for tests and logs). */
  packs = 0;
  /** Parts reused by `encode` so far. */
  reuses = 0;

  /** Notes records applied to the state (call for every appended record, before the next `encode`). */
  noteRecords(records: readonly RealmRecord[]): void {
    if (this.kept.size === 0) return;
    for (const r of records) {
      if (!KEEPS_USERS_AND_SUBSCRIPTIONS.has(r.type)) {
        this.kept.clear();
        return;
      }
    }
  }

  /** Forgets every kept part (the state was replaced or changed outside records). */
  clear(): void {
    this.kept.clear();
  }

  /**
   * `encodeRecord(core)`'s bytes for `core = toSnapshot(state).core`, packing only the parts that
   * may have changed since the last call.
   */
  encode(state: RealmState, core: RealmCore): Uint8Array {
    const sources: Record<KeptPart, object> = { users: state.users, subscriptions: state.subscriptions };
    const entries: Array<[string, Uint8Array]> = [];
    for (const [key, value] of Object.entries(core)) {
      if (!(KEPT_PARTS as readonly string[]).includes(key)) {
        entries.push([key, packValue(value)]);
        continue;
      }
      const part = key as KeptPart;
      const kept = this.kept.get(part);
      if (kept !== undefined && kept.source === sources[part]) {
        this.reuses++;
        entries.push([key, kept.packed]);
      } else {
        const packed = packValue(value);
        this.packs++;
        this.kept.set(part, { source: sources[part], packed });
        entries.push([key, packed]);
      }
    }
    return encodeRecordFromPacked(entries);
  }
}
