/**
 * Muting and unmuting users (https://zulip.com/api/mute-user, https://zulip.com/api/unmute-user;
 * Zulip's `zerver/views/muted_users.py` `mute_user` / `unmute_user`,
 * `zerver/actions/muted_users.py` `do_mute_user` / `do_unmute_user`).
 *
 * Checks, in Zulip's order:
 * - mute: the actor themself → "Cannot mute self"; the target through `access_user_by_id`
 *   (bots and deactivated users allowed: "No such user" / "Insufficient permission"); already
 *   muted → "User already muted";
 * - unmute: the target through the same access; not muted → "User is not muted".
 *
 * Muting also marks every unread message the muted user sent to the actor as read
 * (`do_mark_muted_user_messages_as_read`): one `message_flags_changed` record and an
 * `update_message_flags` event, before the `muted_users` event (Zulip's order).
 */
import { ok, fail, Errors } from '../../errors.js';
import { accessUserById } from '../../domain/access.js';
import { Flag } from '../../domain/message-index.js';
import { encodeRanges, type MessageFlagsChanged } from '../../domain/message-flags.js';
import { isMuted, mutedUsersWire, type UserMuted } from '../../domain/muted-users.js';
import type { RealmRecord } from '../../domain/records.js';
import type { RealmState, User } from '../../domain/realm-state.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import type { Handler, RealmEvent } from '../decision.js';

/** `POST /users/me/muted_users/{muted_user_id}`. */
export interface MuteUser {
  type: 'mute_user';
  actorId: number;
  mutedUserId: number;
}

/** `DELETE /users/me/muted_users/{muted_user_id}`. */
export interface UnmuteUser {
  type: 'unmute_user';
  actorId: number;
  mutedUserId: number;
}

export type MutedUserCommand = MuteUser | UnmuteUser;

/** Replies of the muted-user commands (merged into `CommandReplies`). */
export interface MutedUserReplies {
  mute_user: Record<string, never>;
  unmute_user: Record<string, never>;
}

const ACCESS = { allowBots: true, allowDeactivated: true, forAdmin: false } as const;

/** The `muted_users` event for `userId` once `mutes` (its new list) is in place. */
function mutedUsersEvent(userId: number, mutes: Array<{ id: number; timestamp: number }>): RealmEvent {
  const payload: EventPayloadOf<'muted_users'> = { type: 'muted_users', muted_users: mutes };
  return { userIds: [userId], payload };
}

/** Zulip's `do_mark_muted_user_messages_as_read`: the actor's unread rows sent by `senderId`. */
function markSenderRead(state: RealmState, actor: User, senderId: number): { records: MessageFlagsChanged[]; events: RealmEvent[] } {
  const rows = state.messages.users.get(actor.id);
  const changed: number[] = [];
  const m = state.messages;
  for (let i = 0; i < (rows?.length ?? 0); i++) {
    if ((rows!.flags.get(i) & Flag.read) !== 0) continue;
    const id = rows!.ids.get(i);
    if (m.exists(id) && m.sender.get(id) === senderId) changed.push(id);
  }
  if (changed.length === 0 || rows === undefined) return { records: [], events: [] };
  const payload: EventPayloadOf<'update_message_flags'> = { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: changed, all: false };
  return {
    records: [{ type: 'message_flags_changed', v: 1, userId: actor.id, flag: 'read', op: 'add', ranges: encodeRanges(rows, changed, Flag.read, true) }],
    events: [{ userIds: [actor.id], payload }],
  };
}

export const muteUser: Handler<MuteUser, Record<string, never>> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (cmd.mutedUserId === actor.id) return fail(Errors.cannotMuteSelf());
  const target = accessUserById(state, actor, cmd.mutedUserId, ACCESS);
  if (!target.ok) return target;
  if (isMuted(state, actor.id, target.value.id)) return fail(Errors.userAlreadyMuted());
  const timestamp = Math.floor(ctx.now());
  const record: UserMuted = { type: 'user_muted', v: 1, userId: actor.id, mutedUserId: target.value.id, timestamp };
  const read = markSenderRead(state, actor, target.value.id);
  const mutes = [...mutedUsersWire(state, actor.id), { id: record.mutedUserId, timestamp }];
  const records: RealmRecord[] = [record, ...read.records];
  return ok({ records, events: [...read.events, mutedUsersEvent(actor.id, mutes)], reply: {} });
};

export const unmuteUser: Handler<UnmuteUser, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const target = accessUserById(state, actor, cmd.mutedUserId, ACCESS);
  if (!target.ok) return target;
  if (!isMuted(state, actor.id, target.value.id)) return fail(Errors.userNotMuted());
  const mutes = mutedUsersWire(state, actor.id).filter((m) => m.id !== target.value.id);
  return ok({
    records: [{ type: 'user_unmuted', v: 1, userId: actor.id, mutedUserId: target.value.id }],
    events: [mutedUsersEvent(actor.id, mutes)],
    reply: {},
  });
};
