/**
 * `PATCH /realm` over HTTP (https://zulip.com/api/update-realm): the real server, `realm` events
 * checked with verifyAction (schemas, folded state = fresh `/register`), the reply, Zulip's
 * parameter decoding (JSON booleans and integers, `"unlimited"`, group-setting change requests),
 * permission errors with their codes, and state unchanged after errors.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('PATCH /realm: settings, events, register state', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const groups = (await hamlet.call('GET', '/user_groups')).body.user_groups as Array<{ id: number; name: string }>;
  const group = (name: string) => groups.find((g) => g.name === name)!.id;
  const verona = (await hamlet.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id;
  const denmark = (await hamlet.call('GET', '/get_stream_id', { stream: 'Denmark' })).body.stream_id;

  // Properties: one `update` event each, the reply lists the changes.
  const props = await verifyAction(t, s, hamlet, {
    action: () => iago.call('PATCH', '/realm', {
      name: 'Shakespeare & Co',
      description: 'Plays and sonnets',
      default_language: 'de',
      message_content_allowed_in_email_notifications: false,
      move_messages_within_stream_limit_seconds: 'unlimited',
      topics_policy: 'disable_empty_topic',
    }),
    numEvents: 6,
    stateChangeExpected: true,
  });
  t.same(props.actionResult.body, {
    result: 'success', msg: '',
    move_messages_within_stream_limit_seconds: null,
    name: 'updated', description: 'updated', default_language: 'updated',
    message_content_allowed_in_email_notifications: false,
    topics_policy: 'updated',
  });
  t.match(props.events[1], { type: 'realm', op: 'update', property: 'name', value: 'Shakespeare & Co' });
  t.equal(props.after.realm_name, 'Shakespeare & Co');
  t.equal(props.after.realm_move_messages_within_stream_limit_seconds, null);
  t.equal(props.after.realm_mandatory_topics, true, 'the deprecated flag follows topics_policy');
  t.equal((await hamlet.call('GET', '/server_settings')).body.realm_name, 'Shakespeare & Co', 'server_settings too');

  // Message editing settings and group settings: `update_dict` events.
  const dict = await verifyAction(t, s, hamlet, {
    action: () => desdemona.call('PATCH', '/realm', {
      allow_message_editing: false,
      message_content_edit_limit_seconds: 3600,
      can_create_public_channel_group: { new: group('role:administrators') },
      can_invite_users_group: { new: { direct_members: [hamlet.userId], direct_subgroups: [group('role:administrators')] } },
    }),
    numEvents: 4,
    stateChangeExpected: true,
  });
  t.same(dict.events.map((e) => Object.keys(e.data)[0]), ['message_content_edit_limit_seconds', 'allow_message_editing', 'can_create_public_channel_group', 'can_invite_users_group']);
  t.equal(dict.before.can_create_public_streams, true);
  t.equal(dict.after.can_create_public_streams, false, "hamlet's derived permission follows the group setting");
  t.equal(dict.after.can_invite_others_to_realm, true);
  t.equal(dict.after.realm_create_public_stream_policy, 2, 'deprecated policy enum: administrators');

  // Owner-only settings, channels, edit history, retention.
  const owner = await verifyAction(t, s, hamlet, {
    action: () => desdemona.call('PATCH', '/realm', {
      waiting_period_threshold: 3,
      message_retention_days: 90,
      allow_edit_history: false,
      new_stream_announcements_stream_id: denmark,
      moderation_request_channel_id: verona,
    }),
    numEvents: 6,
    stateChangeExpected: true,
  });
  t.same(owner.events.map((e) => e.property), [
    'message_edit_history_visibility_policy', 'allow_edit_history', 'waiting_period_threshold', 'message_retention_days',
    'moderation_request_channel_id', 'new_stream_announcements_stream_id',
  ]);
  t.equal(owner.after.realm_message_retention_days, 90);
  t.equal(owner.after.realm_moderation_request_channel_id, verona);
  t.equal(owner.after.realm_message_edit_history_visibility_policy, 'none');
  // Edit history is now off: Zulip's error for GET /messages/{id}/history.
  t.same((await hamlet.call('GET', '/messages/1/history')).body, err('Message edit history is disabled in this organization'));
  // -1 clears a channel; "unlimited" retention is -1 on the wire.
  const clear = await verifyAction(t, s, hamlet, {
    action: () => desdemona.call('PATCH', '/realm', { moderation_request_channel_id: -1, message_retention_days: 'unlimited' }),
    numEvents: 2,
    stateChangeExpected: true,
  });
  t.equal(clear.after.realm_moderation_request_channel_id, -1);
  t.equal(clear.after.realm_message_retention_days, -1);
});

t.test('PATCH /realm: errors with codes, state unchanged', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const before = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  const admins = ((await hamlet.call('GET', '/user_groups')).body.user_groups as Array<{ id: number; name: string }>).find((g) => g.name === 'role:administrators')!.id;
  const cases: Array<[typeof iago, Record<string, unknown>, object]> = [
    [hamlet, { name: 'Mine now' }, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, { message_retention_days: 10 }, err('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, { waiting_period_threshold: 10 }, err('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, { can_invite_users_group: { new: 1 } }, err('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL')],
    [desdemona, { default_language: 'xx' }, err("Invalid language 'xx'")],
    [desdemona, { message_retention_days: 'forever' }, { ...err("Bad value for 'message_retention_days': forever", 'REQUEST_VARIABLE_INVALID') }],
    [desdemona, { topics_policy: 'whatever' }, err('Invalid topics_policy')],
    [desdemona, { name: 'x'.repeat(41) }, err('name is too long (limit: 40 characters)')],
    [desdemona, { allow_message_editing: 'perhaps' }, { result: 'error', code: 'BAD_REQUEST' }],
    [desdemona, { new_stream_announcements_stream_id: 4242 }, err('Invalid channel ID')],
    [desdemona, { can_create_public_channel_group: { new: 4242 } }, err('Invalid user group ID')],
    [desdemona, { name: 'Changed', can_create_public_channel_group: { new: admins, old: 4242 } }, err("'old' value does not match the expected value.")],
  ];
  for (const [caller, params, expected] of cases) {
    const reply = await verifyAction(t, s, hamlet, { action: () => caller.call('PATCH', '/realm', params), numEvents: 0, stateChangeExpected: false });
    t.equal(reply.actionResult.status, 400, JSON.stringify(params));
    t.match(reply.actionResult.body, expected, JSON.stringify(params));
  }
  const after = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  for (const key of ['queue_id', 'last_event_id', 'server_timestamp']) {
    delete before[key];
    delete after[key];
  }
  t.same(after, before, 'realm settings unchanged');
});
