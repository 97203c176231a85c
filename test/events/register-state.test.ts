/**
 * `buildRegisterState` against the small realm: realm section values, `realm_user`, `realm_bots`
 * and `realm_user_groups` (key sets: register-state-keys.test.ts; channels, messages, presence
 * and settings: register-state-data.test.ts).
 */
import t from 'tap';
import { smallRealm } from '../support/realm-fixture.js';
import { register } from '../support/register-fixture.js';

t.test('realm section values', async (t) => {
  const r = smallRealm();
  const s = register(r, r.ids.member, { fetchEventTypes: new Set(['realm']) });
  t.match(s, {
    max_message_length: 10000,
    max_topic_length: 60,
    max_stream_name_length: 60,
    max_stream_description_length: 1024,
    server_presence_ping_interval_seconds: 60,
    server_presence_offline_threshold_seconds: 140,
    event_queue_longpoll_timeout_seconds: 90,
    realm_name: 'Test Org',
    realm_url: 'http://127.0.0.1:9991',
    realm_uri: 'http://127.0.0.1:9991',
    realm_message_retention_days: -1,
    realm_allow_message_editing: true,
    realm_message_content_edit_limit_seconds: 600,
    realm_allow_edit_history: true,
    realm_message_edit_history_visibility_policy: 'all',
    realm_topics_policy: 'allow_empty_topic',
    realm_mandatory_topics: false,
    realm_empty_topic_display_name: 'general chat',
    realm_bot_domain: 'chat.example.com',
    realm_date_created: 1_700_000_000,
  });
  const sys = (name: string) => r.state.systemGroups.get(name);
  t.equal(s.realm_can_create_public_channel_group, sys('role:members'), 'stored group setting');
  t.equal(s.realm_can_create_web_public_channel_group, sys('role:owners'));
  t.equal(s.realm_can_manage_billing_group, sys('role:administrators'), 'missing from state: Zulip default');
  t.equal(s.realm_can_set_delete_message_policy_group, sys('role:moderators'));
  t.equal(s.realm_create_public_stream_policy, 1);
  t.equal(s.realm_create_web_public_stream_policy, 7);
  t.equal(s.realm_wildcard_mention_policy, 5);
  r.state.settings.groups.can_create_public_channel_group = { direct_members: [r.ids.member], direct_subgroups: [] };
  const anon = register(r, r.ids.member, { fetchEventTypes: new Set(['realm', 'realm_user']) });
  t.same(anon.realm_can_create_public_channel_group, { direct_members: [r.ids.member], direct_subgroups: [] });
  t.equal(anon.can_create_public_streams, true);
  t.equal(register(r, r.ids.other, { fetchEventTypes: new Set(['realm_user']) }).can_create_public_streams, false);
  t.same(anon.server_supported_permission_settings.realm.can_access_all_users_group, {
    require_system_group: true,
    allow_internet_group: false,
    allow_nobody_group: false,
    allow_everyone_group: true,
    default_group_name: 'role:everyone',
    default_for_system_groups: null,
    allowed_system_groups: ['role:everyone', 'role:members'],
  });
});

t.test('realm_user: lists, own keys, avatars, deactivated users', async (t) => {
  const r = smallRealm();
  r.state.users.get(r.ids.other)!.isActive = false;
  const s = register(r, r.ids.admin, { fetchEventTypes: new Set(['realm_user']) });
  const ids = (list: any[]) => list.map((u) => u.user_id);
  t.same(ids(s.realm_users), [r.ids.owner, r.ids.admin, r.ids.member, r.ids.guest, r.ids.bot], 'active, sorted by id, bots included');
  t.same(ids(s.realm_non_active_users), [r.ids.other]);
  t.same(s.cross_realm_bots, []);
  for (const u of [...s.realm_users, ...s.realm_non_active_users]) t.notOk('is_active' in u, `no is_active for ${u.user_id}`);
  const bot = s.realm_users.find((u: any) => u.user_id === r.ids.bot);
  t.match(bot, { is_bot: true, bot_type: 1, bot_owner_id: r.ids.member });
  t.notOk('profile_data' in bot);
  t.same(s.realm_users[0].profile_data, {});
  t.equal(s.realm_users[0].avatar_url, null, 'client_gravatar: null avatar for public emails');
  t.match(s, {
    user_id: r.ids.admin,
    email: 'admin@example.com',
    delivery_email: 'admin@example.com',
    full_name: 'Adam Admin',
    is_admin: true,
    is_owner: false,
    is_moderator: true,
    is_guest: false,
    avatar_source: 'G',
    can_create_streams: true,
    can_create_web_public_streams: false,
    can_invite_others_to_realm: true,
  });
  t.match(s.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
  t.equal(s.avatar_url_medium, `${s.avatar_url}&s=500`);
  const noGravatar = register(r, r.ids.admin, { fetchEventTypes: new Set(['realm_user']), clientGravatar: false });
  t.type(noGravatar.realm_users[0].avatar_url, 'string');
  const guest = register(r, r.ids.guest, { fetchEventTypes: new Set(['realm_user']) });
  t.match(guest, { is_guest: true, is_admin: false, is_moderator: false, can_create_streams: false, can_invite_others_to_realm: false });
});

t.test('realm_bots: owners see theirs, administrators see all', async (t) => {
  const r = smallRealm();
  const bots = (id: number) => register(r, id, { fetchEventTypes: new Set(['realm_bot']) }).realm_bots;
  t.match(bots(r.ids.member), [{ user_id: r.ids.bot, owner_id: r.ids.member, bot_type: 1, is_active: true, services: [] }]);
  t.type(bots(r.ids.member)[0].api_key, 'string');
  t.same(bots(r.ids.other), []);
  t.equal(bots(r.ids.admin).length, 1);
});

t.test('realm_user_groups: system groups with role members and the subgroup chain', async (t) => {
  const r = smallRealm();
  const groups: any[] = register(r, r.ids.member, { fetchEventTypes: new Set(['realm_user_groups']) }).realm_user_groups;
  const byName = new Map(groups.map((g) => [g.name, g]));
  const id = (name: string) => byName.get(name).id;
  t.same(groups.map((g) => g.id), [...groups.map((g) => g.id)].sort((a, b) => a - b), 'sorted by id');
  t.same(byName.get('role:owners').members, [r.ids.owner]);
  t.same(byName.get('role:administrators').members, [r.ids.admin]);
  t.same(byName.get('role:moderators').members, []);
  t.same(byName.get('role:members').members, [r.ids.member, r.ids.other, r.ids.bot]);
  t.same(byName.get('role:fulltimemembers').members, [r.ids.member, r.ids.other, r.ids.bot]);
  t.same(byName.get('role:everyone').members, [r.ids.guest]);
  t.same(byName.get('role:internet').members, []);
  t.same(byName.get('role:nobody').direct_subgroup_ids, []);
  t.same(byName.get('role:administrators').direct_subgroup_ids, [id('role:owners')]);
  t.same(byName.get('role:everyone').direct_subgroup_ids, [id('role:members')]);
  t.same(byName.get('role:internet').direct_subgroup_ids, [id('role:everyone')]);
  t.match(byName.get('role:members'), {
    is_system_group: true,
    deactivated: false,
    creator_id: null,
    can_mention_group: id('role:nobody'),
    can_manage_group: id('role:nobody'),
  });
});
