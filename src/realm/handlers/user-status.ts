/**
 * `update_user_status` (https://zulip.com/api/update-status,
 * https://zulip.com/api/update-status-for-user, https://zulip.com/api/update-status; Zulip's
 * `update_user_status_backend` / `update_user_status_admin` and `do_update_user_status`):
 * `POST /users/me/status` and, for administrators, `POST /users/{user_id}/status` (FL 407, no
 * `away`).
 *
 * Checks, in Zulip's order: bots may not set their own status; non-administrators may not set
 * another user's ("Insufficient permission"); the target must be an active human ("No such
 * user"); nothing passed; emoji_code/reaction_type without emoji_name; an emoji_name without
 * both code and type is looked up by name ("Emoji '<name>' does not exist"); the triple is then
 * validated (`checkEmoji`). The 60-character limit is checked by the endpoint (it is a parameter
 * rule), and again here so the command cannot bypass it.
 *
 * Only the supplied keys change. One `user_status` event, to every active user of the realm:
 * `{type, user_id}` plus the supplied keys (`away`, `status_text`, and with `emoji_name` also
 * `emoji_code` and `reaction_type`). Like Zulip, an unchanged value still records and notifies.
 * `away` is the negation of the `presence_enabled` setting (seed §4.9; Zulip's
 * `update_user_status_backend` calls `do_change_user_setting(presence_enabled, not away)`), so
 * it also sends that setting's events to the user (`presenceSettingEvents`).
 */
import { ok, fail, Errors, type Result } from '../../errors.js';
import { Role, type RealmState } from '../../domain/realm-state.js';
import type { UserStatusSet } from '../../domain/records.js';
import { canonicalReactionType, checkEmoji, emojiCodeByName, ReactionType } from '../../domain/emoji.js';
import type { Handler } from '../decision.js';
import type { EventPayloadOf } from '../../events/schemas.js';
import { apiEmail } from '../../domain/users.js';
import type { RealmEvent } from '../../events/realm-event.js';

/** Zulip's `UserStatus.MAX_STATUS_TEXT_LENGTH`. */
export const MAX_STATUS_TEXT_LENGTH = 60;

/** The command: keys left undefined were not passed by the client. */
export interface UpdateUserStatus {
  type: 'update_user_status';
  actorId: number;
  /** The user whose status changes (= actorId for `/users/me/status`). */
  targetId: number;
  away?: boolean;
  /** Already whitespace-stripped by the endpoint. */
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/** The (name, code, type) to store for a supplied emoji_name, or the error message. */
function resolveEmoji(state: RealmState, cmd: UpdateUserStatus): Result<{ name: string; code: string; type: string } | undefined> {
  if (cmd.emojiName === undefined) {
    if (cmd.emojiCode !== undefined || cmd.reactionType !== undefined) {
      return fail(Errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.'));
    }
    return ok(undefined);
  }
  if (cmd.emojiName === '') return ok({ name: '', code: '', type: ReactionType.unicode });
  let code = cmd.emojiCode;
  let type = canonicalReactionType(cmd.reactionType);
  if (code === undefined || type === undefined) {
    const found = emojiCodeByName(cmd.emojiName, state);
    if (found === null) return fail(Errors.badRequest(`Emoji '${cmd.emojiName}' does not exist`));
    ({ code, type } = found);
  }
  const invalid = checkEmoji(cmd.emojiName, code, type, state);
  if (invalid !== null) return fail(Errors.badRequest(invalid));
  return ok({ name: cmd.emojiName, code, type });
}

export const updateUserStatus: Handler<UpdateUserStatus, Record<string, never>> = (state, cmd) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  if (cmd.targetId === cmd.actorId) {
    if (actor.isBot) return fail(Errors.noBots());
  } else {
    if (actor.role !== Role.owner && actor.role !== Role.admin) return fail(Errors.insufficientPermission());
    const target = state.users.get(cmd.targetId);
    if (target === undefined || !target.isActive || target.isBot) return fail(Errors.noSuchUser());
  }
  if (cmd.statusText !== undefined && [...cmd.statusText].length > MAX_STATUS_TEXT_LENGTH) {
    return fail(Errors.badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`));
  }
  if (cmd.away === undefined && cmd.statusText === undefined && cmd.emojiName === undefined) {
    return fail(Errors.badRequest('Client did not pass any new values.'));
  }
  const emoji = resolveEmoji(state, cmd);
  if (!emoji.ok) return emoji;

  const record: UserStatusSet = { type: 'user_status_set', v: 1, userId: cmd.targetId };
  const payload: EventPayloadOf<'user_status'> = { type: 'user_status', user_id: cmd.targetId };
  if (cmd.away !== undefined) payload.away = record.away = cmd.away;
  if (cmd.statusText !== undefined) payload.status_text = record.statusText = cmd.statusText;
  if (emoji.value !== undefined) {
    payload.emoji_name = record.emojiName = emoji.value.name;
    payload.emoji_code = record.emojiCode = emoji.value.code;
    payload.reaction_type = record.reactionType = emoji.value.type;
  }
  const userIds = [...state.users.values()].filter((u) => u.isActive).map((u) => u.id);
  const events: RealmEvent[] = [{ userIds, payload }];
  if (cmd.away !== undefined) events.push(...presenceSettingEvents(state, cmd.targetId, !cmd.away));
  return ok({ records: [record], events, reply: {} });
};

/**
 * The events of a `presence_enabled` change, to the user only (Zulip's `do_change_user_setting`):
 * `user_settings` update, then the legacy `update_global_notifications` (the setting predates
 * feature level 89).
 */
export function presenceSettingEvents(state: RealmState, userId: number, presenceEnabled: boolean): RealmEvent[] {
  const user = state.users.get(userId);
  if (user === undefined) return [];
  return [
    { userIds: [userId], payload: { type: 'user_settings', op: 'update', property: 'presence_enabled', value: presenceEnabled } },
    {
      userIds: [userId],
      payload: { type: 'update_global_notifications', user: apiEmail(user, state.host), notification_name: 'presence_enabled', setting: presenceEnabled },
    },
  ];
}
