/**
 * Validation of channel settings shared by `POST /channels/create` and `PATCH /streams/{id}`
 * (https://zulip.com/api/update-stream, https://zulip.com/api/group-setting-values,
 * https://zulip.com/api/create-channel; https://zulip.com/api/subscribe): retention days, topics
 * policy,
 * group-setting values, and who may administer a channel. Pure functions over `RealmState`;
 * errors are returned as `ZulipError` values (never thrown).
 */
import { Errors, ZulipError } from '../errors.js';
import { hasGroupPermission, systemGroupId } from './groups.js';
import { Role, type GroupSettingValue, type RealmState, type Stream, type TopicsPolicy, type User } from './realm-state.js';
import { canSeeStream, isSubscribed } from './access.js';

/**
 * Whether web-public channels may be created or made (https://zulip.com/api/update-stream
 * `is_web_public` prerequisites: the
 * server's WEB_PUBLIC_STREAMS_ENABLED and the realm's `enable_spectator_access`). parley serves no
 * spectators yet and `POST /register` says `server_web_public_streams_enabled: false` and
 * `realm_enable_spectator_access: false`, so this is false until spectator access exists.
 */
export function webPublicChannelsEnabled(_state: RealmState): boolean {
  return false;
}

/** The four stream-level topics policies (https://zulip.com/api/update-stream `topics_policy`). */
export const TOPICS_POLICIES: readonly TopicsPolicy[] = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'];

/**
 * Decodes `message_retention_days` (https://zulip.com/api/update-stream): `"realm_default"` → null,
 * `"unlimited"` → -1,
 * a positive integer (days) → itself. Anything else → `Bad value for 'message_retention_days': <v>`.
 */
export function parseRetentionDays(raw: unknown): number | null | ZulipError {
  if (raw === 'realm_default') return null;
  if (raw === 'unlimited') return -1;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) return raw;
  if (typeof raw === 'string' && /^[0-9]+$/.test(raw) && Number(raw) > 0) return Number(raw);
  return Errors.badValue('message_retention_days', typeof raw === 'string' ? raw : JSON.stringify(raw));
}

/** Validates a `topics_policy` value; returns it or `Invalid topics_policy`. */
export function parseTopicsPolicy(raw: string): TopicsPolicy | ZulipError {
  return (TOPICS_POLICIES as readonly string[]).includes(raw) ? (raw as TopicsPolicy) : Errors.badRequest('Invalid topics_policy');
}

const isIntArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

/**
 * Validates and normalizes a group-setting value for channel setting `name`
 * (https://zulip.com/api/group-setting-values, Zulip's
 * `parse_group_setting_value`): an integer must be an existing, active group other than
 * `role:internet`; an object `{direct_members, direct_subgroups}` must name existing active users and
 * existing groups. An object with no members and one subgroup becomes that group id; an empty object
 * becomes `role:nobody`. Members and subgroups are sorted and deduplicated.
 */
export function parseGroupSettingValue(state: RealmState, name: string, raw: unknown): GroupSettingValue | ZulipError {
  const checkGroup = (id: number): ZulipError | undefined => {
    const group = state.groups.get(id);
    if (group === undefined) return Errors.badRequest('Invalid user group ID');
    if (group.deactivated) return Errors.badRequest('User group is deactivated.');
    if (group.isSystemGroup && group.name === 'role:internet') {
      return Errors.badRequest(`'${name}' setting cannot be set to 'role:internet' group.`);
    }
    return undefined;
  };
  if (typeof raw === 'number' && Number.isInteger(raw)) return checkGroup(raw) ?? raw;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return Errors.badRequest(`${name} is not a valid group-setting value`);
  const obj = raw as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.some((k) => k !== 'direct_members' && k !== 'direct_subgroups') || !isIntArray(obj.direct_members) || !isIntArray(obj.direct_subgroups)) {
    return Errors.badRequest(`${name} is not a valid group-setting value`);
  }
  const members = [...new Set(obj.direct_members)].sort((a, b) => a - b);
  const subgroups = [...new Set(obj.direct_subgroups)].sort((a, b) => a - b);
  for (const id of members) {
    const user = state.users.get(id);
    if (user === undefined || !user.isActive) return Errors.badRequest(`Invalid user ID: ${id}`);
  }
  for (const id of subgroups) {
    const error = checkGroup(id);
    if (error) return error;
  }
  if (members.length === 0 && subgroups.length === 1) return subgroups[0]!;
  if (members.length === 0 && subgroups.length === 0) return systemGroupId(state, 'role:nobody');
  return { direct_members: members, direct_subgroups: subgroups };
}

/** Whether two group-setting values are the same setting (after normalization order). */
export function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y).join(',');
  return sorted(a.direct_members) === sorted(b.direct_members) && sorted(a.direct_subgroups) === sorted(b.direct_subgroups);
}

/**
 * Whether `user` may administer `stream` (https://zulip.com/api/group-setting-values): realm
 * administrators always, else members
 * of the channel's `can_administer_channel_group`.
 */
export function canAdministerChannel(state: RealmState, user: User, stream: Stream): boolean {
  if (user.role <= Role.admin) return true;
  if (user.role === Role.guest) return false;
  return hasGroupPermission(state, user.id, stream.groups.can_administer_channel_group);
}

/**
 * Content access to a channel: public channels for non-guests, otherwise a subscription
 * (https://zulip.com/api/update-stream: changing privacy needs it, even for administrators).
 */
export function hasContentAccess(state: RealmState, user: User, stream: Stream): boolean {
  if (!stream.inviteOnly && user.role !== Role.guest) return true;
  return isSubscribed(state, user.id, stream.id);
}

/** Metadata access: `canSeeStream`, or membership of the channel's administrators group. */
export function hasMetadataAccess(state: RealmState, user: User, stream: Stream): boolean {
  return canSeeStream(state, user, stream) || (user.role !== Role.guest && hasGroupPermission(state, user.id, stream.groups.can_administer_channel_group));
}
