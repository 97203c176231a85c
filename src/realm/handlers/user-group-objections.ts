/**
 * Why a user group cannot be deactivated: Zulip's `access_user_group_for_deactivation`
 * (zerver/lib/user_groups.py, FL 298 `CANNOT_DEACTIVATE_GROUP_IN_USE`). A group is "in use" when
 * it is a direct subgroup of an active named group, or when it is the value of a permission
 * setting — directly or as a direct subgroup of an anonymous group-setting value — of an active
 * (non-archived) channel, an active user group (the group itself included, as Zulip does) or the
 * realm. The objections come in Zulip's order:
 * `{type: "subgroup", supergroup_ids}`, then `{type: "channel", channel_id, settings}` per channel
 * (by id), `{type: "user_group", group_id, settings}` per group (by id), `{type: "realm", settings}`;
 * `settings` lists setting names in Zulip's declaration order.
 */
import { STREAM_GROUP_SETTINGS, type GroupSettingValue, type RealmState } from '../../domain/realm-state.js';
import { GROUP_PERMISSION_SETTINGS, REALM_PERMISSION_GROUP_SETTINGS } from '../../domain/group-permissions.js';

/** Whether a group-setting value names `groupId` directly or as a direct subgroup of its anonymous group. */
function usesGroup(value: GroupSettingValue | undefined, groupId: number): boolean {
  if (value === undefined) return false;
  return typeof value === 'number' ? value === groupId : value.direct_subgroups.includes(groupId);
}

/** The objections to deactivating `groupId`; empty when it may be deactivated. */
export function groupDeactivationObjections(state: RealmState, groupId: number): Record<string, unknown>[] {
  const objections: Record<string, unknown>[] = [];
  const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;

  const supergroupIds = [...state.groups.values()]
    .filter((g) => !g.deactivated && g.directSubgroups.has(groupId))
    .sort(byId)
    .map((g) => g.id);
  if (supergroupIds.length > 0) objections.push({ type: 'subgroup', supergroup_ids: supergroupIds });

  for (const stream of [...state.streams.values()].sort(byId)) {
    if (stream.isArchived) continue;
    const settings = STREAM_GROUP_SETTINGS.filter((name) => usesGroup(stream.groups[name], groupId));
    if (settings.length > 0) objections.push({ type: 'channel', channel_id: stream.id, settings });
  }

  for (const group of [...state.groups.values()].sort(byId)) {
    if (group.deactivated || group.isSystemGroup) continue;
    const settings = Object.keys(GROUP_PERMISSION_SETTINGS).filter((name) => usesGroup(group.settings?.[name], groupId));
    if (settings.length > 0) objections.push({ type: 'user_group', group_id: group.id, settings });
  }

  const realmSettings = Object.keys(REALM_PERMISSION_GROUP_SETTINGS).filter((name) => usesGroup(state.settings.groups[name], groupId));
  if (realmSettings.length > 0) objections.push({ type: 'realm', settings: realmSettings });
  return objections;
}
