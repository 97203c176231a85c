/**
 * Client-side folds of `realm` events (`update`, `update_dict`) into a register state, as Zulip's
 * `apply_event` does; used by `verify-action.ts`. Besides `realm_<property>`, a fold refreshes
 * what the register derives from the changed setting: `realm_mandatory_topics` from
 * `topics_policy`, and from the group settings the user's `can_create_*_streams` /
 * `can_invite_others_to_realm` flags and the deprecated `realm_*_policy` enums (computed from
 * `realm_user_groups`, when the state has it).
 */
type Json = Record<string, any>;

/** Zulip's `Realm.POLICY_*` by system group, and the wildcard-mention variant. */
const POLICY: Record<string, number> = {
  'role:owners': 7, 'role:administrators': 2, 'role:moderators': 4, 'role:fulltimemembers': 3, 'role:members': 1, 'role:everyone': 5, 'role:nobody': 6,
};
const WILDCARD_POLICY: Record<string, number> = {
  'role:everyone': 1, 'role:members': 2, 'role:fulltimemembers': 3, 'role:administrators': 5, 'role:nobody': 6, 'role:moderators': 7,
};
/** Deprecated enum key → [group setting, valid values, fallback] (register/realm.ts). */
const LEGACY: Record<string, [string, number[], number]> = {
  realm_create_public_stream_policy: ['can_create_public_channel_group', [1, 2, 3, 4], 1],
  realm_create_private_stream_policy: ['can_create_private_channel_group', [1, 2, 3, 4], 1],
  realm_create_web_public_stream_policy: ['can_create_web_public_channel_group', [2, 4, 6, 7], 4],
  realm_wildcard_mention_policy: ['can_mention_many_users_group', [1, 2, 3, 5, 6, 7], 1],
};

/** Whether `userId` is in a group-setting value, following subgroups through `realm_user_groups`. */
function inSetting(groups: Json[], value: any, userId: number): boolean {
  const byId = new Map(groups.map((g) => [g.id as number, g]));
  const seen = new Set<number>();
  const inGroup = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    const group = byId.get(id);
    if (group === undefined) return false;
    return (group.members as number[]).includes(userId) || (group.direct_subgroup_ids as number[]).some(inGroup);
  };
  if (typeof value === 'number') return inGroup(value);
  return (value.direct_members as number[]).includes(userId) || (value.direct_subgroups as number[]).some(inGroup);
}

function refreshDerived(state: Json, userId: number): void {
  const groups = state.realm_user_groups as Json[] | undefined;
  if (groups === undefined) return;
  const can = (name: string) => state[`realm_${name}`] !== undefined && inSetting(groups, state[`realm_${name}`], userId);
  if ('can_create_public_streams' in state) {
    state.can_create_private_streams = can('can_create_private_channel_group');
    state.can_create_public_streams = can('can_create_public_channel_group');
    state.can_create_web_public_streams = can('can_create_web_public_channel_group');
    state.can_create_streams = state.can_create_private_streams || state.can_create_public_streams || state.can_create_web_public_streams;
    state.can_invite_others_to_realm = can('can_invite_users_group');
  }
  for (const [key, [setting, valid, fallback]] of Object.entries(LEGACY)) {
    if (!(key in state)) continue;
    const value = state[`realm_${setting}`];
    const group = typeof value === 'number' ? groups.find((g) => g.id === value) : undefined;
    const policy = group?.is_system_group ? (setting === 'can_mention_many_users_group' ? WILDCARD_POLICY : POLICY)[group.name] : undefined;
    state[key] = policy !== undefined && valid.includes(policy) ? policy : fallback;
  }
}

function setProperty(state: Json, property: string, value: unknown): void {
  if (`realm_${property}` in state) state[`realm_${property}`] = structuredClone(value);
  if (property === 'topics_policy' && 'realm_mandatory_topics' in state) state.realm_mandatory_topics = value === 'disable_empty_topic';
}

/** Folds one `realm` event for the user `userId`. */
export function applyRealmEvent(state: Json, event: Json, userId: number): void {
  if (event.op === 'update') setProperty(state, event.property, event.value);
  else if (event.op === 'update_dict') for (const [key, value] of Object.entries(event.data as Json)) setProperty(state, key, value);
  else throw new Error(`applyEvent: no fold for realm ${JSON.stringify(event)}`);
  refreshDerived(state, userId);
}
