/**
 * Draft commands (https://zulip.com/api/edit-draft, https://zulip.com/api/create-drafts;
 * https://zulip.com/api/get-drafts; Zulip's `zerver/lib/drafts.py`).
 * Every command acts on the actor's own drafts; each success sends one `drafts` event to the
 * actor alone (all their clients).
 *
 * Checks, in Zulip's order:
 * 1. `enable_drafts_synchronization` off → "User has disabled synchronizing drafts." (the endpoint
 *    checks it before parsing parameters too; the handler re-checks against the current state);
 * 2. edit/delete: a draft that is not the actor's → HTTP 404 "Draft does not exist" (code
 *    BAD_REQUEST; Zulip's `ResourceNotFoundError`);
 * 3. per draft, as `further_validated_draft_dict` (POST validates every draft before creating any):
 *    content normalised as message content ("Message must not be empty", "Message must not contain
 *    null bytes", truncation to 10000 code points); timestamp default now (`ctx.now()`), rounded to
 *    6 decimals, negative → "Timestamp must not be negative."; channel drafts: topic truncated to
 *    60 code points (not stripped, may be empty), NUL → "Topic must not contain null bytes", not
 *    exactly one id in `to` → "Must specify exactly 1 channel ID for channel messages", no content
 *    access (or archived) → "Invalid channel ID"; direct drafts with a non-empty `to`: unknown id
 *    → "Invalid user ID <id>", deactivated → "'<email>' is no longer using Zulip."; a direct draft
 *    with an empty `to` and an unaddressed draft are stored without recipient (`type ''`).
 *
 * Events: `{type: "drafts", op: "add", drafts: [draft, ...]}` (sent even for an empty list, as
 * Zulip), `{…, op: "update", draft}`, `{…, op: "remove", draft_id}`.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import { normalizeContent, truncateTopic } from '../../domain/messages.js';
import { accessDraft, accessStreamById, draftDoesNotExist } from '../../domain/access.js';
import { personalSetting } from '../../domain/user-settings.js';
import { apiEmail } from '../../domain/users.js';
import { draftWire, nextDraftId, type Draft, type DraftType } from '../../domain/drafts.js';
import type { Handler } from '../decision.js';

/**
 * One draft as parsed by the endpoint (Zulip's `DraftData` after pydantic): `content` already
 * whitespace-stripped and non-blank; `timestamp` in UNIX seconds, undefined = not given (or null).
 */
export interface DraftInput {
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}

/** `POST /drafts`. */
export interface CreateDrafts {
  type: 'create_drafts';
  actorId: number;
  drafts: DraftInput[];
}

/** `PATCH /drafts/{draft_id}`: full replacement of the draft's recipient, topic, content and time. */
export interface EditDraft {
  type: 'edit_draft';
  actorId: number;
  draftId: number;
  draft: DraftInput;
}

/** `DELETE /drafts/{draft_id}`. */
export interface DeleteDraft {
  type: 'delete_draft';
  actorId: number;
  draftId: number;
}

export type DraftCommand = CreateDrafts | EditDraft | DeleteDraft;

/** Replies of the draft commands (merged into `CommandReplies`). */
export interface DraftReplies {
  /** The new ids, in input order. */
  create_drafts: { ids: number[] };
  edit_draft: Record<string, never>;
  delete_draft: Record<string, never>;
}

/** Zulip's error strings, byte for byte. */
export const DraftErrors = {
  syncDisabled: () => Errors.badRequest('User has disabled synchronizing drafts.'),
  /** `ResourceNotFoundError`: HTTP 404, code BAD_REQUEST. */
  doesNotExist: draftDoesNotExist,
  negativeTimestamp: () => Errors.badRequest('Timestamp must not be negative.'),
  topicNullBytes: () => Errors.badRequest('Topic must not contain null bytes'),
  exactlyOneChannel: () => Errors.badRequest('Must specify exactly 1 channel ID for channel messages'),
} as const;

/** Whether the user synchronises drafts (personal setting, default true). */
export function draftsSyncEnabled(user: User): boolean {
  return personalSetting(user, 'enable_drafts_synchronization') !== false;
}

/** Python's `round(x, 6)` for timestamps (half-even differences below 1 µs are irrelevant here). */
const roundMicros = (x: number) => Math.round(x * 1e6) / 1e6;

/** Zulip's `further_validated_draft_dict`: the stored draft (with `id`) or the first error. */
function validateDraft(state: RealmState, user: User, input: DraftInput, id: number, now: () => number): Result<Draft> {
  const body = normalizeContent(input.content);
  if (!body.ok) return fail(Errors.badRequest(body.msg));
  const lastEditTime = roundMicros(input.timestamp ?? now());
  if (lastEditTime < 0) return fail(DraftErrors.negativeTimestamp());
  const draft: Draft = { id, type: '', to: [], topic: '', content: body.content, lastEditTime };
  if (input.type === 'stream') {
    const topic = truncateTopic(input.topic);
    if (topic.includes('\0')) return fail(DraftErrors.topicNullBytes());
    if (input.to.length !== 1) return fail(DraftErrors.exactlyOneChannel());
    const access = accessStreamById(state, user, input.to[0]!);
    if (!access.ok) return access;
    return ok({ ...draft, type: 'stream', to: [access.value.stream.id], topic });
  }
  if (input.type === 'private' && input.to.length > 0) {
    // `get_user_profiles_by_ids(set(to))`: Python iterates a set of small ints in ascending order.
    const ids = [...new Set(input.to)].sort((a, b) => a - b);
    const users: User[] = [];
    for (const uid of ids) {
      const u = state.users.get(uid);
      if (u === undefined) return fail(Errors.invalidUserId(uid));
      users.push(u);
    }
    for (const u of users) if (!u.isActive) return fail(Errors.noLongerUsingZulip(apiEmail(u, state.host)));
    const others = ids.filter((uid) => uid !== user.id);
    return ok({ ...draft, type: 'private', to: others.length > 0 ? others : [user.id] });
  }
  return ok(draft);
}

/** The acting user if active and synchronising drafts, else the error. */
function actor(state: RealmState, actorId: number): Result<User> {
  const user = state.users.get(actorId);
  if (user === undefined || !user.isActive) return fail(Errors.noSuchUser());
  return draftsSyncEnabled(user) ? ok(user) : fail(DraftErrors.syncDisabled());
}

export const createDrafts: Handler<CreateDrafts, { ids: number[] }> = (state, cmd, ctx) => {
  const user = actor(state, cmd.actorId);
  if (!user.ok) return user;
  const first = nextDraftId(state);
  const drafts: Draft[] = [];
  for (const [i, input] of cmd.drafts.entries()) {
    const draft = validateDraft(state, user.value, input, first + i, () => ctx.now());
    if (!draft.ok) return draft;
    drafts.push(draft.value);
  }
  return ok({
    records: drafts.length > 0 ? [{ type: 'drafts_created', v: 1, userId: cmd.actorId, drafts }] : [],
    events: [{ userIds: [cmd.actorId], payload: { type: 'drafts', op: 'add', drafts: drafts.map(draftWire) } }],
    reply: { ids: drafts.map((d) => d.id) },
  });
};

export const editDraft: Handler<EditDraft, Record<string, never>> = (state, cmd, ctx) => {
  const user = actor(state, cmd.actorId);
  if (!user.ok) return user;
  const existing = accessDraft(state, user.value, cmd.draftId);
  if (!existing.ok) return existing;
  const draft = validateDraft(state, user.value, cmd.draft, cmd.draftId, () => ctx.now());
  if (!draft.ok) return draft;
  return ok({
    records: [{ type: 'draft_edited', v: 1, userId: cmd.actorId, draft: draft.value }],
    events: [{ userIds: [cmd.actorId], payload: { type: 'drafts', op: 'update', draft: draftWire(draft.value) } }],
    reply: {},
  });
};

export const deleteDraft: Handler<DeleteDraft, Record<string, never>> = (state, cmd) => {
  const user = actor(state, cmd.actorId);
  if (!user.ok) return user;
  const existing = accessDraft(state, user.value, cmd.draftId);
  if (!existing.ok) return existing;
  return ok({
    records: [{ type: 'draft_deleted', v: 1, userId: cmd.actorId, draftId: cmd.draftId }],
    events: [{ userIds: [cmd.actorId], payload: { type: 'drafts', op: 'remove', draft_id: cmd.draftId } }],
    reply: {},
  });
};
