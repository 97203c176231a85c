/**
 * Default channels (https://zulip.com/api/add-default-stream, https://zulip.com/api/remove-default-stream;
 * Zulip's zerver/views/streams.py `add_default_stream` / `remove_default_stream`,
 * zerver/actions/default_streams.py `do_add_default_stream`, `do_remove_default_stream`,
 * `notify_default_streams`): the channels new users are subscribed to.
 *
 * Rules (Zulip's order): administrators only (`require_realm_admin`); the channel through
 * `access_stream_by_id` ("Invalid channel ID"; removal with `allow_realm_admin`); a private channel
 * cannot be made default ("Private channels cannot be made default."). Adding a default channel or
 * removing a non-default one changes nothing and sends nothing.
 *
 * Event: `default_streams` with the realm's default channel ids (ascending), to every active
 * non-guest user (guests' `realm_default_streams` is always []). Stored as the channel's
 * `isDefault` (a `stream_updated` record), the same flag `PATCH /streams/{id}` `is_default_stream` sets.
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState, type Stream } from '../../domain/realm-state.js';
import { accessStreamById, requireRealmAdmin } from '../../domain/access.js';
import type { RealmView, Decision, Handler } from '../decision.js';

/** `POST /default_streams`. */
export interface AddDefaultStream {
  type: 'add_default_stream';
  actorId: number;
  streamId: number;
}

/** `DELETE /default_streams`. */
export interface RemoveDefaultStream {
  type: 'remove_default_stream';
  actorId: number;
  streamId: number;
}

export type DefaultStreamCommand = AddDefaultStream | RemoveDefaultStream;

/** Replies of the commands above. */
export interface DefaultStreamReplies {
  add_default_stream: Record<string, never>;
  remove_default_stream: Record<string, never>;
}

/** The realm's default channel ids after setting `stream`'s flag to `isDefault`, ascending. */
function defaultIdsWith(state: RealmView, stream: Stream, isDefault: boolean): number[] {
  const ids = [...state.streams.values()].filter((s) => s.id !== stream.id && s.isDefault && !s.isArchived).map((s) => s.id);
  if (isDefault) ids.push(stream.id);
  return ids.sort((a, b) => a - b);
}

/** The decision setting `stream`'s default flag (no-op when unchanged). */
function setDefault(state: RealmView, stream: Stream, isDefault: boolean): Result<Decision<Record<string, never>>> {
  if (stream.isDefault === isDefault) return ok({ records: [], events: [], reply: {} });
  const userIds = [...state.users.values()].filter((u) => u.isActive && u.role !== Role.guest).map((u) => u.id);
  return ok({
    records: [{ type: 'stream_updated', v: 1, streamId: stream.id, changes: { isDefault } }],
    events: [{ userIds, payload: { type: 'default_streams', default_streams: defaultIdsWith(state, stream, isDefault) } }],
    reply: {},
  });
}

/** The administrator and the channel, or Zulip's error. */
function adminAndStream(state: RealmState, actorId: number, streamId: number, requireContentAccess: boolean): Result<Stream> {
  const admin = requireRealmAdmin(state.users.get(actorId));
  if (!admin.ok) return admin;
  const actor = admin.value;
  const access = accessStreamById(state, actor, streamId, { requireContentAccess });
  return access.ok ? ok(access.value.stream) : access;
}

export const addDefaultStream: Handler<AddDefaultStream, Record<string, never>> = (state, cmd) => {
  const stream = adminAndStream(state, cmd.actorId, cmd.streamId, true);
  if (!stream.ok) return stream;
  if (stream.value.inviteOnly) return fail(Errors.badRequest('Private channels cannot be made default.'));
  return setDefault(state, stream.value, true);
};

export const removeDefaultStream: Handler<RemoveDefaultStream, Record<string, never>> = (state, cmd) => {
  const stream = adminAndStream(state, cmd.actorId, cmd.streamId, false);
  if (!stream.ok) return stream;
  return setDefault(state, stream.value, false);
};
