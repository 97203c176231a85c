/**
 * The organization's Welcome Bot text: `PATCH /realm welcome_message_custom_text` (event, register
 * state, length limit), new users joining by an invitation without its own text get it, and
 * `POST /realm/test_welcome_bot_custom_message` sends only that text to the administrator.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, rejects, run, smallRealm } from '../support/realm-fixture.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('setting, test message and errors over HTTP', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const set = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => iago.call('PATCH', '/realm', { welcome_message_custom_text: 'Read the **handbook** first.' }),
  });
  t.match(set.events[0], { type: 'realm', op: 'update', property: 'welcome_message_custom_text', value: 'Read the **handbook** first.' });
  const registered = async () => (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body.realm_welcome_message_custom_text;
  t.equal(await registered(), 'Read the **handbook** first.');
  t.same((await iago.call('PATCH', '/realm', { welcome_message_custom_text: 'x'.repeat(8001) })).body,
    bad('welcome_message_custom_text is too long (limit: 8000 characters)'));
  t.equal(await registered(), 'Read the **handbook** first.', 'unchanged after the error');

  const tried = await iago.call('POST', '/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Try *this* text' });
  t.equal(tried.status, 200);
  const message = (await iago.call('GET', `/messages/${tried.body.message_id}`)).body.message;
  t.match(message, { type: 'private', content: '<p>Try <em>this</em> text</p>' });
  t.match(message.sender_email, /^welcome-bot@/);
  t.same(message.display_recipient.map((r: { id: number }) => r.id).sort(), [iago.userId, message.sender_id].sort(), 'to the administrator');

  t.same((await hamlet.call('POST', '/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'Hi' })).body,
    { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.same((await iago.call('POST', '/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: '' })).body, bad('Message must not be empty'));
  t.same((await iago.call('POST', '/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'y'.repeat(8001) })).body,
    bad('welcome_message_custom_text is too long (limit: 8000 characters)'));
});

t.test('handler: a new user gets the organization text unless the invitation has its own', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, { type: 'update_realm', actorId: ids.admin, settings: { welcome_message_custom_text: 'Org welcome' } }, ctx);
  rejects(t, state, { type: 'test_welcome_bot_message', actorId: ids.member, text: 'x' }, ctx, 'Must be an organization administrator');
  const invite = (text: string | null) => run(state, {
    type: 'create_multiuse_invite', actorId: ids.admin, expiresInMinutes: 60, invitedAs: 400, streamIds: [], groupIds: [],
    includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: text,
  }, ctx).key;
  const welcomeTexts = (key: string, email: string) => {
    const r = decide(state, { type: 'accept_multiuse_invite', key, email, fullName: 'New Person', passwordHash: 'h', timezone: '' }, ctx);
    if (!r.ok) throw r.error;
    return (r.value.followUps ?? []).map((f) => (f as { content: string }).content);
  };
  t.equal(welcomeTexts(invite(null), 'a@example.com')[1], 'Org welcome', 'no text of its own: the organization text');
  t.equal(welcomeTexts(invite('Invite text'), 'b@example.com')[1], 'Invite text');
  t.equal(welcomeTexts(invite(''), 'c@example.com').length, 1, 'an empty text: none');
});
