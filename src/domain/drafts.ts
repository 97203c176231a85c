/**
 * Drafts (https://zulip.com/api/get-drafts, https://zulip.com/api/edit-draft,
 * https://zulip.com/api/create-drafts; https://zulip.com/api/get-drafts; Zulip's
 * `zerver/models/drafts.py`,
 * `zerver/lib/drafts.py`): per user, unsent messages synchronised between the user's clients.
 *
 * A draft is stored in its wire form's terms (Zulip's `Draft.to_dict()`), already resolved:
 * - `type: ''` (no recipient): `to: []`, `topic: ''`;
 * - `type: 'stream'`: `to: [stream_id]`, `topic` as given (truncated, not stripped, may be empty);
 * - `type: 'private'`: `to` = the other participants sorted by id, or `[own id]` for a draft to
 *   oneself (Zulip's `get_recipient_ids`), `topic: ''`.
 * `lastEditTime` is UNIX seconds rounded to 6 decimals (Zulip's `last_edit_time`, microseconds);
 * the wire `timestamp` is its integer part.
 *
 * State shape: `RealmState.drafts` = `{byUser: user id → (draft id → draft, in id order), nextId}`
 * (optional: states built by hand and snapshots written before drafts lack it: no drafts). Draft
 * ids are realm-wide (Zulip's are server-wide): the owner is part of every lookup, so another
 * user's draft id is "Draft does not exist".
 */
import type { RealmState, User } from './realm-state.js';
import { personalSetting } from './user-settings.js';
import { assertNever } from './record-versions.js';

/** `''` unaddressed, `stream` channel draft, `private` direct-message draft. */
export type DraftType = '' | 'stream' | 'private';

/** One stored draft (see the module comment for the meaning of `to`/`topic` per type). */
export interface Draft {
  id: number;
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  /** UNIX seconds, rounded to 6 decimals, never negative. */
  lastEditTime: number;
}

/** All users' drafts and the next draft id. */
export interface DraftState {
  byUser: Map<number, Map<number, Draft>>;
  nextId: number;
}

/** Zulip's wire draft object (`Draft.to_dict()`). */
export interface DraftWire {
  id: number;
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  /** UNIX seconds, integer (truncated `last_edit_time`). */
  timestamp: number;
}

/** A user created drafts (`POST /drafts`); their ids are consecutive from the realm's `nextId`. */
export interface DraftsCreated {
  type: 'drafts_created';
  v: 1;
  userId: number;
  drafts: Draft[];
}

/** A user replaced one of their drafts (`PATCH /drafts/{id}`): every field but the id. */
export interface DraftEdited {
  type: 'draft_edited';
  v: 1;
  userId: number;
  draft: Draft;
}

/** A user deleted one of their drafts (`DELETE /drafts/{id}`). */
export interface DraftDeleted {
  type: 'draft_deleted';
  v: 1;
  userId: number;
  draftId: number;
}

/**
 * All of a user's drafts were deleted because they turned `enable_drafts_synchronization` off
 * (Zulip's `do_change_user_setting`: deleted without events; clients keep their local copies).
 */
export interface DraftsCleared {
  type: 'drafts_cleared';
  v: 1;
  userId: number;
}

export type DraftRecord = DraftsCreated | DraftEdited | DraftDeleted | DraftsCleared;

/** At most this many drafts in `/register` (Zulip's `MAX_DRAFTS_IN_REGISTER_RESPONSE`). */
export const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

const NO_DRAFTS: ReadonlyMap<number, Draft> = new Map();

/** A user's drafts by id (a shared empty map when none: do not mutate). */
export function draftsOf(state: RealmState, userId: number): ReadonlyMap<number, Draft> {
  return state.drafts?.byUser.get(userId) ?? NO_DRAFTS;
}

/** The user's draft with this id, or undefined (also for another user's draft). */
export function findDraft(state: RealmState, userId: number, draftId: number): Draft | undefined {
  return draftsOf(state, userId).get(draftId);
}

/** The id the next created draft gets. */
export function nextDraftId(state: RealmState): number {
  return state.drafts?.nextId ?? 1;
}

/** Wire form of one draft (`timestamp` = integer part of `lastEditTime`). */
export function draftWire(d: Draft): DraftWire {
  return { id: d.id, type: d.type, to: [...d.to], topic: d.topic, content: d.content, timestamp: Math.trunc(d.lastEditTime) };
}

/** Oldest edit first; ties by id (Zulip leaves them to the database). */
const byEditTime = (a: Draft, b: Draft) => a.lastEditTime - b.lastEditTime || a.id - b.id;

/** `GET /drafts`: the user's drafts, least recently edited first (Zulip's `order_by("last_edit_time")`). */
export function draftsForFetch(state: RealmState, userId: number): DraftWire[] {
  return [...draftsOf(state, userId).values()].sort(byEditTime).map(draftWire);
}

/**
 * `/register` `drafts`: most recently edited first, at most 1000 (Zulip's `fetch_initial_state_data`);
 * none while the user has `enable_drafts_synchronization` off (turning it off deleted them).
 */
export function draftsForRegister(state: RealmState, user: User): DraftWire[] {
  if (personalSetting(user, 'enable_drafts_synchronization') === false) return [];
  return [...draftsOf(state, user.id).values()]
    .sort((a, b) => byEditTime(b, a))
    .slice(0, MAX_DRAFTS_IN_REGISTER_RESPONSE)
    .map(draftWire);
}

const copyDraft = (d: Draft): Draft => ({ ...d, to: [...d.to] });

/** `evolve` of the draft records. */
export function evolveDrafts(state: RealmState, r: DraftRecord): void {
  const all = (state.drafts ??= { byUser: new Map(), nextId: 1 });
  switch (r.type) {
    case 'drafts_created': {
      if (r.drafts.length === 0) return;
      let mine = all.byUser.get(r.userId);
      if (mine === undefined) all.byUser.set(r.userId, (mine = new Map()));
      for (const d of r.drafts) {
        mine.set(d.id, copyDraft(d));
        if (d.id >= all.nextId) all.nextId = d.id + 1;
      }
      return;
    }
    case 'draft_edited': {
      const mine = all.byUser.get(r.userId);
      if (mine?.has(r.draft.id)) mine.set(r.draft.id, copyDraft(r.draft));
      return;
    }
    case 'draft_deleted': {
      const mine = all.byUser.get(r.userId);
      if (mine === undefined) return;
      mine.delete(r.draftId);
      if (mine.size === 0) all.byUser.delete(r.userId);
      return;
    }
    case 'drafts_cleared':
      all.byUser.delete(r.userId);
      return;
    default:
      assertNever(r, 'record type');
  }
}

/**
 * The record deleting `userId`'s drafts when a settings change turns `enable_drafts_synchronization`
 * off (`wasEnabled` = its value before), or none when nothing is to delete. Used by `update_settings`.
 */
export function draftsClearedBySettings(state: RealmState, userId: number, wasEnabled: unknown, settings: Readonly<Record<string, unknown>> | undefined): DraftsCleared[] {
  if (settings?.enable_drafts_synchronization !== false || wasEnabled === false) return [];
  return draftsOf(state, userId).size > 0 ? [{ type: 'drafts_cleared', v: 1, userId }] : [];
}

/** Snapshot form (see realm-snapshot.ts; absent in snapshots written before drafts: none). */
export interface DraftsCore {
  nextId: number;
  users: Array<[userId: number, drafts: Draft[]]>;
}

export function draftsToCore(state: RealmState): DraftsCore | undefined {
  if (state.drafts === undefined) return undefined;
  return { nextId: state.drafts.nextId, users: [...state.drafts.byUser].map(([userId, mine]) => [userId, [...mine.values()]]) };
}

/** Restores `state.drafts` (`undefined`/`null` = an older snapshot, or no draft ever: no drafts). */
export function draftsFromCore(state: RealmState, core: DraftsCore | null | undefined): void {
  if (core === undefined || core === null) {
    delete state.drafts;
    return;
  }
  const byUser = new Map<number, Map<number, Draft>>();
  for (const [userId, drafts] of core.users) byUser.set(userId, new Map(drafts.map((d) => [d.id, copyDraft(d)])));
  state.drafts = { byUser, nextId: core.nextId };
}
