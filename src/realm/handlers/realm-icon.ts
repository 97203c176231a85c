/**
 * The organization icon command (https://zulip.com/api/register-queue `realm_icon_url`; Zulip's
 * zerver/views/realm_icon.py `upload_icon`, `delete_icon_backend` and zerver/actions/realm_icon.py
 * `do_change_icon_source`): administrators only ("Must be an organization administrator"); the
 * uploaded PNG is already durable in the file store (`realm/media.ts uploadRealmIcon`). Every
 * change bumps `icon_version` and sends `{type: "realm", op: "update_dict", property: "icon",
 * data: {icon_url, icon_source}}` to every active user; the reply is `{icon_url}`.
 */
import { ok } from '../../errors.js';
import { requireRealmAdmin } from '../../domain/access.js';
import { realmIcon, realmIconSource, realmIconUrl, type RealmIcon } from '../../domain/realm-icon.js';
import type { Handler } from '../decision.js';
import { activeUserIds } from './user-events.js';

/** `POST /realm/icon` once the 100 px PNG is stored (`sha256`); `sha256: null` = `DELETE /realm/icon`. */
export interface ChangeRealmIcon {
  type: 'change_realm_icon';
  actorId: number;
  sha256: string | null;
}

export interface RealmIconReplies {
  change_realm_icon: { icon_url: string };
}

export const changeRealmIcon: Handler<ChangeRealmIcon, { icon_url: string }> = (state, cmd) => {
  const actor = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!actor.ok) return actor;
  const icon: RealmIcon = { sha256: cmd.sha256, version: realmIcon(state).version + 1 };
  const url = realmIconUrl(state, icon);
  return ok({
    records: [{ type: 'realm_icon_changed', v: 1, sha256: icon.sha256, version: icon.version }],
    events: [{ userIds: activeUserIds(state), payload: { type: 'realm', op: 'update_dict', property: 'icon', data: { icon_url: url, icon_source: realmIconSource(icon) } } }],
    reply: { icon_url: url },
  });
};
