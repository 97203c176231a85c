/**
 * Avatars over HTTP (https://zulip.com/api/set-avatar... `POST`/`DELETE /users/me/avatar`):
 * 100 px and 500 px PNGs served under `/user_avatars/`, `avatar_source`/`avatar_version`, the
 * URL in user and message objects (also with `client_gravatar`), `realm_user` events via
 * verifyAction, and every error with nothing stored.
 */
import t from 'tap';
import sharp from 'sharp';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { getBytes, solidImage, uploadAs } from '../support/multipart.js';
import { storedFiles } from '../support/upload-client.js';

t.test('upload: two sizes served, URL everywhere, delete goes back to gravatar', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const before = (await hamlet.call('GET', '/users/me')).body;
  const up = await uploadAs(s, hamlet, 'POST', '/users/me/avatar', [{ filename: 'me.jpg', type: 'image/jpeg', data: await solidImage(640, 480, 'jpeg') }]);
  t.equal(up.status, 200);
  const url = up.body.avatar_url as string;
  t.match(url, new RegExp(`^/user_avatars/\\d+/[0-9a-f]{40}\\.png\\?version=${before.avatar_version + 1}$`));

  const small = await getBytes(s, url);
  t.equal(small.status, 200);
  t.equal(small.headers.get('content-type'), 'image/png');
  t.same(await sharp(small.bytes).metadata().then((m) => [m.format, m.width, m.height]), ['png', 100, 100]);
  const medium = await getBytes(s, url.replace('.png', '-medium.png'));
  t.same(await sharp(medium.bytes).metadata().then((m) => [m.width, m.height]), [500, 500]);

  // Every user and message object, whoever asks, with or without client_gravatar.
  const me = (await hamlet.call('GET', '/users/me')).body;
  t.equal(me.avatar_url, url);
  t.equal(me.avatar_version, before.avatar_version + 1);
  const listed = (await othello.call('GET', '/users', { client_gravatar: true })).body.members.find((u: any) => u.user_id === hamlet.userId);
  t.equal(listed.avatar_url, url, 'an uploaded avatar is never nulled by client_gravatar');
  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'avatar', content: 'hi' });
  const message = (await othello.call('GET', `/messages/${sent.body.id}`)).body.message;
  t.equal(message.avatar_url, url);
  const fetched = (await othello.call('GET', '/messages', { anchor: sent.body.id, num_before: 0, num_after: 0, client_gravatar: true })).body.messages[0];
  t.equal(fetched.avatar_url, url);

  const deleted = await hamlet.call('DELETE', '/users/me/avatar');
  t.match(deleted.body.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=/);
  const after = (await hamlet.call('GET', '/users/me')).body;
  t.equal(after.avatar_version, before.avatar_version + 2);
  t.equal(after.avatar_url, deleted.body.avatar_url);
  t.equal((await getBytes(s, url)).status, 404, 'the old file is no longer served');
});

t.test('errors: nothing stored, nothing changed', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const before = (await hamlet.call('GET', '/users/me')).body;
  const img = { filename: 'a.png', type: 'image/png', data: await solidImage(10, 10) };
  const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
  const cases: Array<[any[], ReturnType<typeof err>]> = [
    [[], err('You must upload exactly one avatar.')],
    [[img, img], err('You must upload exactly one avatar.')],
    [[{ filename: 'a.html', type: 'text/html', data: Buffer.from('<b>x</b>') }], err('Invalid image format', 'BAD_IMAGE')],
    [[{ filename: 'a.png', type: 'image/png', data: Buffer.from('definitely not an image') }], err('Could not decode image; did you upload an image file?', 'BAD_IMAGE')],
    [[{ filename: 'a.svg', type: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }], err('Could not decode image; did you upload an image file?', 'BAD_IMAGE')],
  ];
  for (const [files, expected] of cases) {
    const reply = await uploadAs(s, hamlet, 'POST', '/users/me/avatar', files);
    t.equal(reply.status, 400);
    t.same(reply.body, expected, expected.msg);
  }
  t.same((await hamlet.call('GET', '/users/me')).body, before, 'user unchanged');
  t.same(storedFiles(s), [], 'nothing stored');
  // A form-urlencoded POST has no files at all.
  t.same((await hamlet.call('POST', '/users/me/avatar')).body, err('You must upload exactly one avatar.'));
});

t.test('realm_user avatar events (verifyAction)', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  for (const clientGravatar of [false, true]) {
    const opts = { eventTypes: ['realm_user'], registerParams: { client_gravatar: clientGravatar } };
    const set = await verifyAction(t, s, othello, {
      ...opts, numEvents: 1, stateChangeExpected: true,
      action: async () => uploadAs(s, hamlet, 'POST', '/users/me/avatar', [{ filename: 'a.png', type: 'image/png', data: await solidImage(50, 80) }]),
    });
    const person = set.events[0]!.person;
    t.equal(person.avatar_source, 'U');
    t.equal(person.avatar_url, set.actionResult.body.avatar_url);
    t.equal(person.avatar_url_medium, set.actionResult.body.avatar_url.replace('.png?', '-medium.png?'));
    const removed = await verifyAction(t, s, othello, {
      ...opts, numEvents: 1, stateChangeExpected: true,
      action: () => hamlet.call('DELETE', '/users/me/avatar'),
    });
    t.equal(removed.events[0]!.person.avatar_source, 'G');
  }
});

t.test('avatar_changes_disabled: only administrators change avatars (PATCH /realm, register, errors)', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const refused = { result: 'error', msg: 'Avatar changes are disabled in this organization.', code: 'BAD_REQUEST' };
  t.same((await hamlet.call('PATCH', '/realm', { avatar_changes_disabled: true })).body.code, 'UNAUTHORIZED_PRINCIPAL', 'members cannot set it');
  const changed = await verifyAction(t, s, iago, {
    action: () => iago.call('PATCH', '/realm', { avatar_changes_disabled: true }),
    numEvents: 1,
  });
  t.match(changed.events[0], { type: 'realm', op: 'update', property: 'avatar_changes_disabled', value: true });
  t.equal((await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body.realm_avatar_changes_disabled, true);

  const before = (await hamlet.call('GET', '/users/me')).body;
  const img = { filename: 'a.png', type: 'image/png', data: await solidImage(10, 10) };
  const posted = await uploadAs(s, hamlet, 'POST', '/users/me/avatar', [img]);
  t.equal(posted.status, 400);
  t.same(posted.body, refused);
  t.same((await uploadAs(s, hamlet, 'POST', '/users/me/avatar', [])).body.msg, 'You must upload exactly one avatar.', "Zulip's order: the file count first");
  t.same((await hamlet.call('DELETE', '/users/me/avatar')).body, refused);
  t.same((await hamlet.call('GET', '/users/me')).body, before, 'hamlet unchanged');
  t.same(storedFiles(s), [], 'nothing stored');

  t.equal((await uploadAs(s, iago, 'POST', '/users/me/avatar', [img])).status, 200, 'an administrator still may');
  t.equal((await iago.call('PATCH', '/realm', { avatar_changes_disabled: false })).status, 200);
  t.equal((await uploadAs(s, hamlet, 'POST', '/users/me/avatar', [img])).status, 200, 'allowed again');
});

t.test('changing the email: an uploaded avatar stays (no gravatar event), a gravatar follows the address', async (t) => {
  const s = await startTestServer(t);
  const desdemona = await s.as('desdemona@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const up = await uploadAs(s, hamlet, 'POST', '/users/me/avatar', [{ filename: 'me.png', type: 'image/png', data: await solidImage(20, 20) }]);
  const uploadedUrl = up.body.avatar_url as string;
  const moved = await verifyAction(t, s, desdemona, {
    action: () => desdemona.call('PATCH', `/users/${hamlet.userId}`, { new_email: 'prince@zulip.com' }),
    registerParams: { client_gravatar: false },
    stateChangeExpected: true,
  });
  t.equal(moved.actionResult.status, 200);
  t.notOk(moved.events.some((e) => e.person?.avatar_url !== undefined), 'no avatar change announced');
  const after = (await desdemona.call('GET', `/users/${hamlet.userId}`, { client_gravatar: false })).body.user;
  t.equal(after.avatar_url, uploadedUrl, 'the uploaded avatar is kept');

  const gravatarBefore = (await desdemona.call('GET', `/users/${cordelia.userId}`, { client_gravatar: false })).body.user.avatar_url as string;
  const regravatared = await verifyAction(t, s, desdemona, {
    action: () => desdemona.call('PATCH', `/users/${cordelia.userId}`, { new_email: 'lear.daughter@zulip.com' }),
    registerParams: { client_gravatar: false },
    stateChangeExpected: true,
  });
  const avatarEvent = regravatared.events.find((e) => e.person?.avatar_url !== undefined);
  t.match(avatarEvent, { type: 'realm_user', op: 'update', person: { user_id: cordelia.userId, avatar_source: 'G' } });
  t.not(avatarEvent?.person.avatar_url, gravatarBefore, 'the gravatar URL follows the new address');
  t.equal((await desdemona.call('GET', `/users/${cordelia.userId}`, { client_gravatar: false })).body.user.avatar_url, avatarEvent?.person.avatar_url);
});
