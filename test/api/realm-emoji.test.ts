/**
 * Custom emoji over HTTP (https://zulip.com/api/upload-custom-emoji, get-custom-emoji,
 * deactivate-custom-emoji): upload with sharp resizing and the served files, every error of
 * Zulip's order with nothing stored, deactivation rules, `realm_emoji` events and register state
 * via verifyAction, `:name:` rendering, and reactions / user status with `realm_emoji`.
 */
import t from 'tap';
import sharp from 'sharp';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { animatedGif, getBytes, solidImage, uploadAs } from '../support/multipart.js';
import { storedFiles } from '../support/upload-client.js';

/** Digests held by the server's file store (what `put` wrote). */
const png = (name = 'e.png') => async () => ({ filename: name, type: 'image/png', data: await solidImage(200, 100) as Buffer });

t.test('upload, list, serve, deactivate; files resized to 64 px', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const up = await uploadAs(s, hamlet, 'POST', '/realm/emoji/green%20tick', [await png()()]);
  t.same(up.body, { result: 'success', msg: '' });
  const list = (await hamlet.call('GET', '/realm/emoji')).body.emoji as Record<string, any>;
  const [id] = Object.keys(list);
  t.match(list[id!], { id: id, name: 'green_tick', deactivated: false, author_id: hamlet.userId, still_url: null });
  t.match(list[id!].source_url, /^\/user_avatars\/\d+\/emoji\/images\/[0-9a-f]{8}\.png$/);

  const file = await getBytes(s, list[id!].source_url);
  t.equal(file.status, 200);
  t.equal(file.headers.get('content-type'), 'image/png');
  t.equal(file.headers.get('x-content-type-options'), 'nosniff');
  const meta = await sharp(file.bytes).metadata();
  t.same([meta.width, meta.height], [64, 64], 'centre-cropped to 64×64');
  t.equal((await getBytes(s, list[id!].source_url.replace(/\/(\d+)\//, '/999/'))).status, 404, 'another realm id');
  t.equal((await getBytes(s, '/user_avatars/../../etc/passwd')).status, 404);

  // Deactivation: only admins or the author.
  const othello = await s.as('othello@zulip.com');
  t.same((await othello.call('DELETE', '/realm/emoji/green_tick')).body,
    { result: 'error', msg: 'Must be an organization administrator or emoji author', code: 'BAD_REQUEST' });
  t.same((await hamlet.call('DELETE', '/realm/emoji/green_tick')).body, { result: 'success', msg: '' });
  t.same((await hamlet.call('DELETE', '/realm/emoji/green_tick')).body,
    { result: 'error', msg: "Emoji 'green_tick' does not exist", code: 'BAD_REQUEST' });
  const after = (await hamlet.call('GET', '/realm/emoji')).body.emoji;
  t.equal(after[id!].deactivated, true, 'kept, deactivated');
  t.equal((await getBytes(s, list[id!].source_url)).status, 200, 'old messages keep their image');
  // The name is free again: a new id.
  t.same((await uploadAs(s, othello, 'POST', '/realm/emoji/green_tick', [await png()()])).body, { result: 'success', msg: '' });
  const again = (await hamlet.call('GET', '/realm/emoji')).body.emoji;
  t.equal(Object.keys(again).length, 2);
});

t.test('animated GIF: stays animated, with a still PNG', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  t.same((await uploadAs(s, iago, 'POST', '/realm/emoji/blink', [{ filename: 'b.gif', type: 'image/gif', data: await animatedGif(80, 40) }])).body,
    { result: 'success', msg: '' });
  const [emoji] = Object.values((await iago.call('GET', '/realm/emoji')).body.emoji) as any[];
  t.match(emoji.source_url, /\.gif$/);
  t.match(emoji.still_url, /\/emoji\/images\/still\/[0-9a-f]{8}\.png$/);
  const anim = await getBytes(s, emoji.source_url);
  const meta = await sharp(anim.bytes, { animated: true }).metadata();
  t.equal(meta.format, 'gif');
  t.equal(meta.pages, 2, 'every frame kept');
  t.same([meta.width, meta.pageHeight], [64, 64], 'padded to a square');
  const still = await getBytes(s, emoji.still_url);
  t.equal(still.headers.get('content-type'), 'image/png');
  t.same(await sharp(still.bytes).metadata().then((m) => [m.format, m.width, m.height, m.pages ?? 1]), ['png', 64, 64, 1]);
});

t.test('errors in Zulip\'s order; nothing stored, nothing listed', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const ok = await png()();
  const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });
  const NAME_CHARS = 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.';
  const cases: Array<[typeof hamlet, string, any[], ReturnType<typeof err>]> = [
    [hamlet, '%20', [ok], err('Emoji name is missing')],
    [hamlet, 'smile_', [ok], err('Emoji names must end with either a letter or digit.')],
    [hamlet, 'Smile', [ok], err(NAME_CHARS)],
    [hamlet, 'sm%C3%AFle', [ok], err(NAME_CHARS)],
    [polonius, 'fine', [ok], err('Not allowed for guest users')],
    [hamlet, 'fine', [], err('You must upload exactly one file.')],
    [hamlet, 'fine', [ok, ok], err('You must upload exactly one file.')],
    [hamlet, 'smile', [ok], err('Only administrators can override built-in emoji.')],
    [hamlet, 'fine', [{ filename: 'x.svg', type: 'image/svg+xml', data: Buffer.from('<svg/>') }], err('Invalid image format', 'BAD_IMAGE')],
    [hamlet, 'fine', [{ filename: 'x.txt', type: 'text/plain', data: Buffer.from('hello') }], err('Invalid image format', 'BAD_IMAGE')],
    [hamlet, 'fine', [{ filename: 'x.png', type: 'image/png', data: Buffer.from('not a png at all') }], err('Could not decode image; did you upload an image file?', 'BAD_IMAGE')],
    [hamlet, 'fine', [{ filename: 'x.png', type: 'image/png', data: ok.data.subarray(0, 40) }], err('Could not decode image; did you upload an image file?', 'BAD_IMAGE')],
  ];
  for (const [caller, name, files, expected] of cases) {
    const reply = await uploadAs(s, caller, 'POST', `/realm/emoji/${name}`, files);
    t.equal(reply.status, 400);
    t.same(reply.body, expected, `${name}: ${expected.msg}`);
  }
  t.same((await hamlet.call('GET', '/realm/emoji')).body.emoji, {}, 'nothing created');
  t.same(storedFiles(s), [], 'nothing stored');

  // Over 5 MiB (inside the 5 MiB body limit the check cannot be reached: the body limit is raised).
  // An administrator may override a built-in emoji; then the name is taken.
  t.same((await uploadAs(s, iago, 'POST', '/realm/emoji/smile', [ok])).body, { result: 'success', msg: '' });
  t.same((await uploadAs(s, hamlet, 'POST', '/realm/emoji/smile', [ok])).body, err('A custom emoji with this name already exists.'));

  // can_add_custom_emoji_group: administrators only.
  const admins = (await iago.call('GET', '/user_groups')).body.user_groups.find((g: any) => g.name === 'role:administrators').id;
  const changed = await iago.call('PATCH', '/realm', { can_add_custom_emoji_group: JSON.stringify({ new: admins }) });
  if (changed.body.result === 'success') {
    t.same((await uploadAs(s, hamlet, 'POST', '/realm/emoji/fine', [ok])).body, err('Insufficient permission'));
  } else {
    t.comment(`PATCH /realm can_add_custom_emoji_group not available here: ${changed.body.msg}`);
  }
});

t.test('realm_emoji events and register state (verifyAction)', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const opts = { eventTypes: ['realm_emoji'] };
  const img = await png()();
  const added = await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => uploadAs(s, iago, 'POST', '/realm/emoji/party', [img]),
  });
  const event = added.events[0]!;
  t.equal(event.type, 'realm_emoji');
  t.equal(event.op, 'update');
  const [entry] = Object.values(event.realm_emoji) as any[];
  t.match(entry, { name: 'party', deactivated: false, author_id: iago.userId });
  t.same(added.after.realm_emoji, event.realm_emoji);

  const removed = await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('DELETE', '/realm/emoji/party'),
  });
  t.equal((Object.values(removed.events[0]!.realm_emoji)[0] as any).deactivated, true);

  await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 0, stateChangeExpected: false,
    action: () => uploadAs(s, hamlet, 'POST', '/realm/emoji/Bad', [img]),
  });
});

t.test(':name: renders the realm emoji; reactions and user status validate realm_emoji', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const iago = await s.as('iago@zulip.com');
  await uploadAs(s, iago, 'POST', '/realm/emoji/parrot', [await png()()]);
  const [emoji] = Object.values((await hamlet.call('GET', '/realm/emoji')).body.emoji) as any[];

  const rendered = await hamlet.call('POST', '/messages/render', { content: 'hi :parrot: and :smile:' });
  t.equal(rendered.body.rendered,
    `<p>hi <img alt=":parrot:" class="emoji" src="${emoji.source_url}" title="parrot"> and ` +
    '<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>');

  const sent = await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'emoji', content: 'x' });
  const mid = sent.body.id as number;
  const react = (params: Record<string, string>) => hamlet.call('POST', `/messages/${mid}/reactions`, params);
  t.same((await react({ emoji_name: 'parrot' })).body, { result: 'success', msg: '' }, 'name resolves to the realm emoji');
  const msg = (await hamlet.call('GET', `/messages/${mid}`)).body.message;
  t.match(msg.reactions, [{ emoji_name: 'parrot', emoji_code: emoji.id, reaction_type: 'realm_emoji' }]);
  const othello = await s.as('othello@zulip.com');
  const oreact = (params: Record<string, string>) => othello.call('POST', `/messages/${mid}/reactions`, params);
  t.same((await oreact({ emoji_name: 'parrot', emoji_code: '999', reaction_type: 'realm_emoji' })).body.msg, 'Invalid custom emoji.');
  t.same((await oreact({ emoji_name: 'smile', emoji_code: '999', reaction_type: 'realm_emoji' })).body.msg, 'Invalid custom emoji.');

  await uploadAs(s, iago, 'POST', '/realm/emoji/other', [await png()()]);
  const other = (Object.values((await hamlet.call('GET', '/realm/emoji')).body.emoji) as any[]).find((e) => e.name === 'other');
  t.same((await oreact({ emoji_name: 'parrot', emoji_code: other.id, reaction_type: 'realm_emoji' })).body.msg, 'Invalid custom emoji name.');

  t.same((await hamlet.call('POST', '/users/me/status', { emoji_name: 'parrot' })).body, { result: 'success', msg: '' });
  await iago.call('DELETE', '/realm/emoji/other');
  t.same((await oreact({ emoji_name: 'other', emoji_code: other.id, reaction_type: 'realm_emoji' })).body.msg, 'This custom emoji has been deactivated.');
  t.same((await othello.call('POST', '/users/me/status', { emoji_name: 'other', emoji_code: other.id, reaction_type: 'realm_emoji' })).body.msg,
    'This custom emoji has been deactivated.');
  t.same((await othello.call('POST', '/users/me/status', { emoji_name: 'other' })).body.msg, "Emoji 'other' does not exist");
  const deactivatedRender = await hamlet.call('POST', '/messages/render', { content: ':other:' });
  t.equal(deactivatedRender.body.rendered, '<p>:other:</p>', 'a deactivated emoji stays text');
});
