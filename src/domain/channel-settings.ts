/**
 * Validation of channel settings shared by `POST /channels/create` and `PATCH /streams/{id}`
 * (seed §2.10–2.11, §4.2–4.3; zulip-behavior.md §3.2, §3.10): retention days, topics policy,
 * group-setting values. Who may administer a channel is the access family's (`access.ts`). Pure
 * functions over `RealmState`; errors are returned as `ZulipError` values (never thrown).
 */
import { Errors, ZulipError } from '../errors.js';
import { systemGroupId } from './groups.js';
import type { GroupSettingValue, RealmState, TopicsPolicy } from './realm-state.js';

/**
 * Whether web-public channels may be created or made (seed §4.2 `is_web_public` prerequisites: the
 * server's WEB_PUBLIC_STREAMS_ENABLED and the realm's `enable_spectator_access`). parley serves no
 * spectators yet and `POST /register` says `server_web_public_streams_enabled: false` and
 * `realm_enable_spectator_access: false`, so this is false until spectator access exists.
 */
export function webPublicChannelsEnabled(_state: RealmState): boolean {
  return false;
}

/** The four stream-level topics policies (seed §2.1). */
export const TOPICS_POLICIES: readonly TopicsPolicy[] = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'];

/**
 * Decodes `message_retention_days` (seed §4.2): `"realm_default"` → null, `"unlimited"` → -1,
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
 * Validates and normalizes a group-setting value for channel setting `name` (seed §2.11, Zulip's
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
