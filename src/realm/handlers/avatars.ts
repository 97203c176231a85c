/**
 * Avatar commands (https://zulip.com/api/set-avatar... Zulip's zerver/views/user_settings.py
 * `set_avatar_backend`, `delete_avatar_backend`, zerver/actions/user_settings.py
 * `do_change_avatar_fields`, `notify_avatar_url_change`).
 *
 * Setting an uploaded avatar (its two PNGs already durable in the file store, see
 * `realm/media.ts`) or going back to gravatar both bump `avatar_version` and send
 * `{type: "realm_user", op: "update", person: {user_id, avatar_source, avatar_url,
 * avatar_url_medium, avatar_version}}` to every active user; the reply is `{avatar_url}`.
 * Bots keep their avatars (parley's bots have no avatar uploads).
 */
import { ok } from '../../errors.js';
import { accessAvatarChange } from '../../domain/access.js';
import { avatarPath, avatarSource, type AvatarChanged } from '../../domain/avatars.js';
import { avatarUrl, avatarUrlMedium } from '../../domain/users.js';
import type { User } from '../../domain/realm-state.js';
import type { Handler } from '../decision.js';
import { personEvent } from './user-events.js';

/** `POST /users/me/avatar` once the image is stored; `null` digests = `DELETE /users/me/avatar`. */
export interface ChangeAvatar {
  type: 'change_avatar';
  actorId: number;
  /** Digests of the stored 100 px and 500 px PNGs, or null to go back to gravatar. */
  upload: { sha256: string; mediumSha256: string } | null;
}

export const changeAvatar: Handler<ChangeAvatar, { avatar_url: string }> = (state, cmd) => {
  const access = accessAvatarChange(state.users.get(cmd.actorId), state.settings.avatarChangesDisabled === true);
  if (!access.ok) return access;
  const actor = access.value;
  const version = actor.avatarVersion + 1;
  const avatar = cmd.upload === null ? null : { path: avatarPath(state.id, actor.id, version, cmd.upload.sha256), ...cmd.upload };
  const record: AvatarChanged = { type: 'avatar_changed', v: 1, userId: actor.id, version, avatar };
  // The user as the record will leave it, for the URLs of the event and the reply.
  const after: User = { ...actor, avatarVersion: version };
  if (avatar === null) delete after.avatar;
  else after.avatar = avatar;
  const url = avatarUrl(after, false)!;
  const event = personEvent(state, {
    user_id: actor.id,
    avatar_source: avatarSource(after),
    avatar_url: url,
    avatar_url_medium: avatarUrlMedium(after),
    avatar_version: version,
  });
  return ok({ records: [record], events: [event], reply: { avatar_url: url } });
};
