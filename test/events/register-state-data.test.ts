/**
 * `buildRegisterState` data after activity: subscriptions and channels (no private-channel leak),
 * unread/starred/recent-conversation state after messages, presence formats, settings, every key
 * zulip-terminal needs, and the cost of fetching everything.
 */
import t from 'tap';
import { smallRealm } from '../support/realm-fixture.js';
import { formatPresences } from '../../src/events/register/presence.js';
import { checkRegisterState } from '../../src/events/schemas.js';
import { Flag } from '../../src/domain/message-index.js';
import type { User } from '../../src/domain/realm-state.js';
import { addFlags, baseOpts, register, send } from '../support/register-fixture.js';

t.test('subscriptions, never_subscribed, streams and default streams', async (t) => {
  const r = smallRealm();
  const s = register(r, r.ids.member);
  t.same(s.subscriptions.map((x: any) => x.name), ['general', 'secret'], 'sorted by name');
  t.same(s.never_subscribed.map((x: any) => x.name), ['empty']);
  t.same(s.unsubscribed, []);
  t.same(s.streams.map((x: any) => x.name), ['empty', 'general', 'secret']);
  const general = s.subscriptions[0];
  t.same(general.subscribers, [r.ids.owner, r.ids.admin, r.ids.member, r.ids.other]);
  t.equal(general.desktop_notifications, false, 'null replaced without notification_settings_null');
  t.equal(general.wildcard_mentions_notify, null, 'wildcard_mentions_notify stays null');
  const nullCaps = register(r, r.ids.member, { clientCapabilities: { notification_settings_null: true }, includeSubscribers: false });
  t.equal(nullCaps.subscriptions[0].desktop_notifications, null);
  t.notOk('subscribers' in nullCaps.subscriptions[0]);
  t.notOk('subscribers' in nullCaps.never_subscribed[0]);

  r.state.streams.get(r.streams.general)!.isDefault = true;
  t.same(register(r, r.ids.member).realm_default_streams, [r.streams.general]);
  t.same(register(r, r.ids.guest).realm_default_streams, [], 'guests see no default streams');

  r.state.streams.get(r.streams.empty)!.isArchived = true;
  t.same(register(r, r.ids.member).never_subscribed, [], 'archived hidden');
  t.same(
    register(r, r.ids.member, { clientCapabilities: { archived_channels: true } }).never_subscribed.map((x: any) => x.name),
    ['empty'],
    'archived_channels capability',
  );
});

t.test('a private channel never leaks to non-subscribers or guests', async (t) => {
  const r = smallRealm();
  const id = send(r, { senderId: r.ids.owner, to: 'secret', topic: 'plans', content: 'hush' });
  for (const [who, userId] of [['other', r.ids.other], ['guest', r.ids.guest]] as const) {
    const s = register(r, userId);
    const json = JSON.stringify(s);
    t.notOk(json.includes('"secret"'), `${who}: channel name absent`);
    t.notOk(json.includes('"plans"'), `${who}: topic absent`);
    t.notOk(s.streams.some((x: any) => x.stream_id === r.streams.secret), `${who}: not in streams`);
    t.notOk(s.unread_msgs.streams.some((x: any) => x.stream_id === r.streams.secret));
    t.ok(s.max_message_id < id, `${who}: max_message_id does not reveal the message`);
  }
  const guest = register(r, r.ids.guest);
  t.same(guest.streams, [], 'a guest sees no public channel it is not subscribed to');
  t.same(guest.never_subscribed, []);
  const admin = register(r, r.ids.admin);
  t.ok(admin.never_subscribed.some((x: any) => x.stream_id === r.streams.secret), 'administrators see private channels');
  t.notOk(admin.unread_msgs.streams.some((x: any) => x.stream_id === r.streams.secret));

  // A member who left the channel keeps the UserMessage row but no unread entry.
  r.state.subscriptions.get(r.streams.secret)!.delete(r.ids.member);
  r.state.userStreams.get(r.ids.member)!.delete(r.streams.secret);
  const left = register(r, r.ids.member);
  t.notOk(left.unread_msgs.streams.some((x: any) => x.stream_id === r.streams.secret), 'left channel: no unread');
  t.notOk(JSON.stringify(left).includes('"secret"'));
});

t.test('unread_msgs, starred_messages, recent_private_conversations, max_message_id', async (t) => {
  const r = smallRealm();
  const { owner, admin, member, other } = r.ids;
  const m1 = send(r, { senderId: other, topic: 'Lunch' });
  const m2 = send(r, { senderId: owner, topic: 'lunch' });
  const m3 = send(r, { senderId: other, topic: 'alpha' });
  const m4 = send(r, { senderId: member, topic: 'alpha', readBySender: true });
  const m5 = send(r, { senderId: owner, to: 'secret', topic: '' });
  const d1 = send(r, { senderId: other, messageType: 'private', to: ['member@example.com'], topic: undefined });
  const d2 = send(r, { senderId: owner, messageType: 'private', to: ['member@example.com'], topic: undefined });
  const d3 = send(r, { senderId: other, messageType: 'private', to: ['member@example.com', 'owner@example.com'], topic: undefined });
  const d4 = send(r, { senderId: member, messageType: 'private', to: ['member@example.com'], topic: undefined, readBySender: false });
  const d5 = send(r, { senderId: other, messageType: 'private', to: ['member@example.com'], topic: undefined });
  const d6 = send(r, { senderId: admin, messageType: 'private', to: ['other@example.com'], topic: undefined });
  addFlags(r, member, m3, Flag.mentioned);
  addFlags(r, member, m1, Flag.stream_wildcard_mentioned);
  addFlags(r, member, d2, Flag.read | Flag.starred);
  addFlags(r, member, m2, Flag.starred);

  const s = register(r, member);
  t.equal(s.max_message_id, d5, 'highest message the member received (not d6)');
  t.same(s.unread_msgs, {
    pms: [
      { other_user_id: member, sender_id: member, unread_message_ids: [d4] },
      { other_user_id: other, sender_id: other, unread_message_ids: [d1, d5] },
    ],
    streams: [
      { stream_id: r.streams.general, topic: 'alpha', unread_message_ids: [m3] },
      { stream_id: r.streams.general, topic: 'Lunch', unread_message_ids: [m1, m2] },
      { stream_id: r.streams.secret, topic: 'general chat', unread_message_ids: [m5] },
    ],
    huddles: [{ user_ids_string: [owner, member, other].sort((a, b) => a - b).join(','), unread_message_ids: [d3] }],
    mentions: [m1, m3],
    count: 8,
    old_unreads_missing: false,
  });
  const unreadIds = [...s.unread_msgs.pms, ...s.unread_msgs.streams, ...s.unread_msgs.huddles].flatMap((b: any) => b.unread_message_ids);
  t.notOk(unreadIds.includes(m4), 'own read message not unread');
  t.same(s.starred_messages, [m2, d2]);
  t.same(s.recent_private_conversations, [
    { user_ids: [other], max_message_id: d5 },
    { user_ids: [], max_message_id: d4 },
    { user_ids: [owner, other].sort((a, b) => a - b), max_message_id: d3 },
    { user_ids: [owner], max_message_id: d2 },
  ]);

  const modern = register(r, member, { clientCapabilities: { empty_topic_name: true } });
  t.equal(modern.unread_msgs.streams.find((x: any) => x.stream_id === r.streams.secret).topic, '', 'empty_topic_name');

  r.state.subscriptions.get(r.streams.general)!.get(member)!.isMuted = true;
  const muted = register(r, member);
  t.equal(muted.unread_msgs.count, 5, 'muted channel: listed but not counted (3 of 8 were there)');
  t.equal(muted.unread_msgs.streams.length, 3);
  t.same(muted.unread_msgs.mentions, [m3], 'wildcard mention in a muted channel does not count');

  // Zulip keeps a channel the user never joined (their own message there) but not one they left.
  const own = send(r, { senderId: member, to: 'empty', topic: 'solo', readBySender: false });
  t.same(
    register(r, member).unread_msgs.streams.find((x: any) => x.stream_id === r.streams.empty),
    { stream_id: r.streams.empty, topic: 'solo', unread_message_ids: [own] },
    'own unread message in a public channel the user is not subscribed to',
  );

  const fresh = smallRealm();
  const empty = register(fresh, fresh.ids.member);
  t.equal(empty.max_message_id, -1);
  t.same(empty.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
  t.same(empty.recent_private_conversations, []);
  t.same(empty.starred_messages, []);
});

t.test('presence formats: legacy keyed by email, slim keyed by user id', async (t) => {
  const rows = [{ userId: 7, email: 'a@example.com', lastActiveTime: 1000, lastConnectedTime: 1060 }];
  const legacy = formatPresences(rows, false);
  t.same(Object.keys(legacy), ['a@example.com']);
  t.same(legacy['a@example.com'], {
    aggregated: { client: 'website', status: 'active', timestamp: 1000 },
    website: { client: 'website', status: 'active', timestamp: 1000, pushable: false },
  });
  const idle = formatPresences([{ ...rows[0]!, lastConnectedTime: 1100 }], false) as any;
  t.match(idle['a@example.com'].aggregated, { status: 'idle', timestamp: 1100 });
  t.same(formatPresences(rows, true), { '7': { active_timestamp: 1000, idle_timestamp: 1060 } });
  t.same(checkRegisterState({ presences: legacy }), []);
  t.same(checkRegisterState({ presences: formatPresences(rows, true) }), []);

  const r = smallRealm();
  for (const slim of [false, true]) {
    const s = register(r, r.ids.member, { fetchEventTypes: new Set(['presence']), slimPresence: slim });
    t.same(s.presences, {});
    t.equal(s.presence_last_update_id, -1);
    t.equal(s.server_timestamp, baseOpts.now);
  }
});

t.test('user_settings and legacy settings', async (t) => {
  const r = smallRealm();
  const user: User = r.state.users.get(r.ids.member)!;
  user.timezone = 'Europe/Berlin';
  user.emailAddressVisibility = 3;
  const s = register(r, r.ids.member);
  t.match(s.user_settings, {
    twenty_four_hour_time: false,
    send_private_typing_notifications: true,
    pm_content_in_desktop_notifications: true,
    email_address_visibility: 3,
    timezone: 'Europe/Berlin',
    resolved_topic_notice_auto_read_policy: 'except_followed',
    web_home_view: 'inbox',
  });
  t.ok(Array.isArray(s.user_settings.emojiset_choices) && s.user_settings.available_notification_sounds.includes('zulip'));
  t.equal(s.timezone, 'Europe/Berlin', 'legacy top-level timezone');
  t.notOk('timezone' in s.realm_user_settings_defaults);
  t.equal(s.realm_user_settings_defaults.email_address_visibility, 1);
});

t.test('zulip-terminal: every key it reads is present', async (t) => {
  const r = smallRealm();
  send(r, { senderId: r.ids.other, topic: 'hello' });
  send(r, { senderId: r.ids.other, messageType: 'private', to: ['member@example.com'], topic: undefined });
  send(r, { senderId: r.ids.other, messageType: 'private', to: ['member@example.com', 'owner@example.com'], topic: undefined });
  const ztFetch = new Set([
    'realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics',
    'realm_user', 'realm_user_groups', 'user_settings', 'realm_emoji', 'custom_profile_fields', 'zulip_version',
  ]);
  for (const [label, fetch] of [['zulip-terminal fetch types', ztFetch], ['all types', null]] as const) {
    const s = register(r, r.ids.member, { fetchEventTypes: fetch, clientGravatar: true, includeSubscribers: true });
    t.same(checkRegisterState(s), [], `${label}: schema`);
    for (const key of [
      'max_message_id', 'zulip_version', 'zulip_feature_level', 'user_id', 'email', 'full_name', 'realm_name',
      'realm_message_retention_days', 'realm_users', 'cross_realm_bots', 'presences', 'subscriptions', 'unread_msgs',
      'starred_messages', 'muted_topics', 'realm_user_groups', 'user_settings', 'realm_emoji',
      'realm_allow_message_editing', 'realm_message_content_edit_limit_seconds', 'realm_allow_edit_history',
      'custom_profile_fields', 'max_stream_name_length', 'max_topic_length', 'max_message_length',
      'server_typing_started_wait_period_milliseconds', 'server_typing_stopped_wait_period_milliseconds',
      'server_typing_started_expiry_period_milliseconds', 'server_presence_offline_threshold_seconds',
      'server_presence_ping_interval_seconds',
    ]) {
      t.ok(key in s, `${label}: ${key}`);
    }
    t.type(s.zulip_feature_level, 'number');
    t.ok(s.zulip_feature_level >= 300, 'a modern feature level');
    for (const u of s.realm_users) t.ok(['user_id', 'email', 'full_name', 'is_bot'].every((k) => k in u), `realm_users[${u.user_id}]`);
    for (const sub of s.subscriptions) {
      for (const k of [
        'stream_id', 'name', 'color', 'description', 'invite_only', 'is_muted', 'pin_to_top', 'desktop_notifications',
        'message_retention_days', 'subscribers', 'date_created', 'history_public_to_subscribers', 'stream_weekly_traffic',
        'rendered_description',
      ]) {
        t.ok(k in sub, `subscriptions[${sub.name}].${k}`);
      }
      t.match(sub.color, /^#[0-9a-f]{6}$/);
      t.type(sub.desktop_notifications, 'boolean');
    }
    const u = s.unread_msgs;
    t.ok(u.pms.length > 0 && u.pms.every((p: any) => typeof p.sender_id === 'number' && Array.isArray(p.unread_message_ids)));
    t.ok(u.streams.length > 0 && u.streams.every((x: any) => 'stream_id' in x && 'topic' in x && 'unread_message_ids' in x));
    t.ok(u.huddles.length > 0 && u.huddles.every((h: any) => /^\d+(,\d+)+$/.test(h.user_ids_string)));
    t.ok(Array.isArray(u.mentions));
    t.ok(Array.isArray(s.starred_messages));
    t.ok(Array.isArray(s.muted_topics) && s.muted_topics.every((x: unknown[]) => x.length === 3));
    t.ok(s.realm_user_groups.every((g: any) => 'id' in g && 'name' in g));
    for (const k of ['send_private_typing_notifications', 'twenty_four_hour_time', 'pm_content_in_desktop_notifications']) {
      t.type(s.user_settings[k], 'boolean', `user_settings.${k}`);
    }
    t.same(s.realm_emoji, {});
    t.type(s.presences, 'object');
  }
});

t.test('fetching everything stays cheap with many messages', async (t) => {
  const r = smallRealm();
  const { state } = r;
  const general = state.streams.get(r.streams.general)!;
  const topicId = state.topics.intern('bulk');
  const clientId = state.clients.intern('test');
  const rows = state.messages.userMessages(r.ids.member);
  const n = 200_000;
  for (let id = 1; id <= n; id++) {
    state.messages.add({ id, senderId: r.ids.other, recipientId: general.recipientId, topicId, timestamp: 1_700_000_000 + id, clientId, bits: 0 });
    rows.append(id, id % 3 === 0 ? 0 : Flag.read);
  }
  state.nextIds.message = n + 1;
  register(r, r.ids.member); // warm up
  const start = performance.now();
  const s = register(r, r.ids.member);
  const ms = performance.now() - start;
  t.equal(s.unread_msgs.streams[0].unread_message_ids.length, 50_000, 'capped at the newest 50 000 unread');
  t.equal(s.unread_msgs.old_unreads_missing, true);
  t.equal(s.unread_msgs.streams[0].unread_message_ids.at(-1), n - (n % 3));
  t.ok(ms < 500, `built in ${ms.toFixed(1)} ms`);
});
