/**
 * The organization icon (https://zulip.com/api/register-queue `realm_icon_url`; Zulip's
 * zerver/views/realm_icon.py): parley's default icon is really served, `POST /realm/icon`
 * (administrators; one image, resized to a 100 px square PNG) and `DELETE /realm/icon`, the
 * `realm` `update_dict` icon events (verifyAction), `GET /server_settings` agreeing with
 * `/register`, and errors leaving nothing stored or changed.
 */
import t from 'tap';
import sharp from 'sharp';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { getBytes, solidImage, uploadAs } from '../support/multipart.js';
import { storedFiles } from '../support/upload-client.js';

const pathOf = (url: string) => (url.startsWith('/') ? url : new URL(url).pathname + new URL(url).search);

t.test('default icon, upload, delete', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const registered = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  t.equal(registered.realm_icon_source, 'G');
  const settings = (await s.request('GET', '/server_settings')).body;
  t.equal(settings.realm_icon, registered.realm_icon_url, 'server_settings and register agree');
  const fallback = await getBytes(s, pathOf(registered.realm_icon_url));
  t.equal(fallback.status, 200, 'the default icon is served');
  t.equal(fallback.headers.get('content-type'), 'image/png');
  t.same(await sharp(fallback.bytes).metadata().then((m) => [m.format, m.width, m.height]), ['png', 128, 128]);

  const { events, actionResult } = await verifyAction(t, s, hamlet, {
    eventTypes: ['realm'],
    action: async () => uploadAs(s, iago, 'POST', '/realm/icon', [{ filename: 'logo.jpg', type: 'image/jpeg', data: await solidImage(300, 200, 'jpeg') }]),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.equal(actionResult.status, 200);
  const url = actionResult.body.icon_url as string;
  t.match(url, /^\/user_avatars\/\d+\/realm\/icon\.png\?version=2$/);
  t.same(events[0], { id: events[0]!.id, type: 'realm', op: 'update_dict', property: 'icon', data: { icon_url: url, icon_source: 'U' } });
  const icon = await getBytes(s, url);
  t.equal(icon.status, 200);
  t.same(await sharp(icon.bytes).metadata().then((m) => [m.format, m.width, m.height]), ['png', 100, 100], 'a 100 px square');
  t.equal((await s.request('GET', '/server_settings')).body.realm_icon, url);

  const deleted = await verifyAction(t, s, hamlet, {
    eventTypes: ['realm'],
    action: () => iago.call('DELETE', '/realm/icon'),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.match(deleted.actionResult.body.icon_url, /\/static\/images\/logo\/zulip-icon-128x128\.png\?version=3$/);
  t.match(deleted.events[0], { property: 'icon', data: { icon_source: 'G' } });
  t.equal((await getBytes(s, url.split('?')[0]!)).status, 404, 'the uploaded icon is no longer served');
});

t.test('errors: nothing stored, nothing changed', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const before = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  const img = { filename: 'a.png', type: 'image/png', data: await solidImage(10, 10) };
  const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
  const notAdmin = await uploadAs(s, hamlet, 'POST', '/realm/icon', [img]);
  t.same(notAdmin.body, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'));
  t.same((await hamlet.call('DELETE', '/realm/icon')).body, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'));
  const cases: Array<[any[], ReturnType<typeof err>]> = [
    [[], err('You must upload exactly one icon.')],
    [[img, img], err('You must upload exactly one icon.')],
    [[{ filename: 'a.html', type: 'text/html', data: Buffer.from('<b>x</b>') }], err('Invalid image format', 'BAD_IMAGE')],
    [[{ filename: 'a.png', type: 'image/png', data: Buffer.from('definitely not an image') }], err('Could not decode image; did you upload an image file?', 'BAD_IMAGE')],
    [[{ filename: 'big.png', type: 'image/png', data: Buffer.alloc(5 * 1024 * 1024 + 1) }], err('Uploaded file is larger than the allowed limit of 5 MiB')],
  ];
  for (const [files, expected] of cases) {
    const reply = await uploadAs(s, iago, 'POST', '/realm/icon', files);
    t.equal(reply.status, 400);
    t.same(reply.body, expected, expected.msg);
  }
  const after = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  t.same([after.realm_icon_url, after.realm_icon_source], [before.realm_icon_url, before.realm_icon_source], 'icon unchanged');
  t.same(storedFiles(s), [], 'nothing stored');
});
