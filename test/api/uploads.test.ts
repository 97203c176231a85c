/**
 * Uploads and attachments over HTTP (https://zulip.com/api/upload-file,
 * https://zulip.com/api/get-file-temporary-url, https://zulip.com/api/get-attachments,
 * https://zulip.com/api/remove-attachment): the real server, multipart bodies from fetch's
 * FormData, files read back through `/user_uploads/...`. Error cases assert that nothing was
 * stored (no attachment, no file in the store).
 */
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { basicAuth, getFile, storedFiles, upload } from '../support/upload-client.js';
import { verifyAction } from '../support/verify-action.js';

const auth = basicAuth;

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('upload, list, serve with headers and ranges, delete', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const text = 'hello, uploaded world\n';
  const done = await verifyAction(t, s, hamlet, {
    action: () => upload(s, hamlet, [['file', text, 'My notes (v2).txt', 'text/plain']]),
    numEvents: 1,
    stateChangeExpected: false,
  });
  const reply = done.actionResult.body;
  t.equal(reply.result, 'success');
  t.match(reply.uri, /^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{24}\/My-notes-v2.txt$/);
  t.equal(reply.url, reply.uri);
  t.equal(reply.filename, 'My notes (v2).txt');
  const event = done.events[0]!;
  t.match(event, { type: 'attachment', op: 'add', upload_space_used: text.length, attachment: { name: 'My-notes-v2.txt', size: text.length, messages: [] } });

  const list = (await hamlet.call('GET', '/attachments')).body;
  t.equal(list.upload_space_used, text.length);
  t.equal(list.attachments.length, 1);
  t.equal(list.attachments[0].path_id, reply.uri.slice('/user_uploads/'.length));

  const served = await getFile(s, reply.uri, hamlet);
  t.equal(served.status, 200);
  t.equal(served.bytes.toString(), text);
  t.equal(served.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(served.headers.get('x-content-type-options'), 'nosniff');
  t.equal(served.headers.get('content-disposition'), 'inline; filename="My-notes-v2.txt"');
  t.match(served.headers.get('cache-control'), /private/);
  const ranged = await getFile(s, reply.uri, hamlet, { Range: 'bytes=6-10' });
  t.equal(ranged.status, 206);
  t.equal(ranged.bytes.toString(), text.slice(6, 11));
  t.equal(ranged.headers.get('content-range'), `bytes 6-10/${text.length}`);
  const unsatisfiable = await getFile(s, reply.uri, hamlet, { Range: 'bytes=999-' });
  t.equal(unsatisfiable.status, 416);
  t.equal(unsatisfiable.headers.get('content-range'), `bytes */${text.length}`);
  const headRes = await fetch(`${s.url}${reply.uri}`, { method: 'HEAD', headers: { Authorization: auth(hamlet) } });
  t.equal(headRes.status, 200);
  t.equal(headRes.headers.get('content-length'), String(text.length), 'HEAD: the length without the body');
  t.equal((await headRes.arrayBuffer()).byteLength, 0);
  const crafted = await getFile(s, `/user_uploads/${reply.uri.split('/')[2]}/..%2F..%2F..%2Fetc/passwd/x/y`, hamlet);
  t.equal(crafted.status, 404, 'a crafted path only selects (no) record');

  const othello = await s.as('othello@zulip.com');
  const id = list.attachments[0].id;
  t.same((await othello.call('DELETE', `/attachments/${id}`)).body, bad('Invalid attachment'), "another user's attachment");
  t.same((await hamlet.call('DELETE', '/attachments/999')).body, bad('Invalid attachment'), 'unknown id');
  t.equal((await hamlet.call('GET', '/attachments')).body.attachments.length, 1, 'unchanged after errors');
  // The same bytes uploaded twice are stored once; deleting one attachment keeps them for the other.
  const twin = (await upload(s, hamlet, [['file', text, 'twin.txt', 'text/plain']])).body;
  t.equal(storedFiles(s).length, 1, 'stored once');
  const aged = new Date(Date.now() - 5 * 60_000);
  for (const digest of storedFiles(s)) utimesSync(join(s.dataDir, 'files', 'sha256', digest.slice(0, 2), digest), aged, aged);
  const removed = await verifyAction(t, s, hamlet, { action: () => hamlet.call('DELETE', `/attachments/${id}`), numEvents: 1, stateChangeExpected: false });
  t.same(removed.events[0], { ...removed.events[0], type: 'attachment', op: 'remove', attachment: { id }, upload_space_used: text.length }, 'the twin still counts');
  t.equal((await getFile(s, reply.uri, hamlet)).status, 404, 'gone once deleted');
  t.equal((await getFile(s, twin.uri, hamlet)).bytes.toString(), text, 'the twin still serves the bytes');
  t.equal(storedFiles(s).length, 1);
  const twinId = (await hamlet.call('GET', '/attachments')).body.attachments[0].id;
  await hamlet.call('DELETE', `/attachments/${twinId}`);
  t.same((await hamlet.call('GET', '/attachments')).body.attachments, []);
  for (let i = 0; i < 50 && storedFiles(s).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.same(storedFiles(s), [], 'the bytes are removed with the last attachment naming them');
});

t.test('HTML and SVG are never served inline; binary types are guessed from the name', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const html = await upload(s, hamlet, [['file', '<script>alert(1)</script>', 'x.html', 'text/html']]);
  const served = await getFile(s, html.body.uri, hamlet);
  t.equal(served.headers.get('content-disposition'), 'attachment; filename="x.html"');
  t.match(served.headers.get('content-security-policy'), /sandbox/);
  const svg = await upload(s, hamlet, [['file', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'pic.svg', 'application/octet-stream']]);
  const svgServed = await getFile(s, svg.body.uri, hamlet);
  t.equal(svgServed.headers.get('content-type'), 'image/svg+xml');
  t.match(svgServed.headers.get('content-disposition'), /^attachment;/);
  const png = await upload(s, hamlet, [['file', new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'tiny.png', '']]);
  const pngServed = await getFile(s, png.body.uri, hamlet);
  t.equal(pngServed.headers.get('content-type'), 'image/png');
  t.match(pngServed.headers.get('content-disposition'), /^inline;/);
  t.match((await getFile(s, `${png.body.uri}?download`, hamlet)).headers.get('content-disposition'), /^attachment;/);
});

t.test('bad uploads are refused with Zulip errors and store nothing', async (t) => {
  const s = await startTestServer(t, { maxFileUploadMib: 1 });
  const hamlet = await s.as('hamlet@zulip.com');
  const nothingStored = async (what: string) => {
    t.same((await hamlet.call('GET', '/attachments')).body.attachments, [], `${what}: no attachment`);
    t.same(storedFiles(s), [], `${what}: no file`);
  };
  t.same((await hamlet.call('POST', '/user_uploads', { a: 'b' })).body, bad('You must specify a file to upload'), 'urlencoded body');
  const noFile = new FormData();
  noFile.append('x', 'y');
  const res = await fetch(`${s.url}/api/v1/user_uploads`, { method: 'POST', headers: { Authorization: auth(hamlet) }, body: noFile });
  t.same(await res.json(), bad('You must specify a file to upload'), 'multipart without a file');
  t.same((await upload(s, hamlet, [['a', 'one', 'a.txt'], ['b', 'two', 'b.txt']])).body, bad('You may only upload one file at a time'));
  await nothingStored('two files');
  t.same((await upload(s, hamlet, [['a', '', 'empty.txt']])).body, bad('Uploaded file is empty'));
  const big = await upload(s, hamlet, [['a', new Uint8Array(1024 * 1024 + 1), 'big.bin']]);
  t.same(big.body, bad("File is larger than this server's configured maximum upload size (1 MiB)."));
  t.same((await upload(s, hamlet, [['a', new Uint8Array(1024 * 1024), 'exact.bin']])).body.result, 'success', 'exactly the limit is fine');
  const broken = await fetch(`${s.url}/api/v1/user_uploads`, {
    method: 'POST',
    headers: { Authorization: auth(hamlet), 'Content-Type': 'multipart/form-data; boundary=XYZ' },
    body: '--XYZ\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nunterminated',
  });
  t.equal(broken.status, 400);
  t.match(await broken.json(), { result: 'error', code: 'BAD_REQUEST', msg: /Malformed multipart/ });
  t.equal((await hamlet.call('GET', '/attachments')).body.attachments.length, 1, 'only the good upload');
  t.equal(storedFiles(s).length, 1);
  const anonymous = await fetch(`${s.url}/api/v1/user_uploads`, { method: 'POST', body: new FormData() });
  t.equal(anonymous.status, 401);
});

t.test('the realm upload quota', async (t) => {
  const s = await startTestServer(t, { uploadQuotaMib: 1, maxFileUploadMib: 3 });
  const hamlet = await s.as('hamlet@zulip.com');
  const realm = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body;
  t.equal(realm.realm_upload_quota_mib, 1, 'register reports the quota');
  t.equal(realm.max_file_upload_size_mib, 3, 'and the upload limit');
  t.equal((await upload(s, hamlet, [['a', new Uint8Array(700 * 1024), 'a.bin']])).body.result, 'success');
  const over = await upload(s, hamlet, [['a', new Uint8Array(400 * 1024).fill(1), 'b.bin']]);
  t.same(over.body, { result: 'error', msg: "Upload would exceed your organization's upload quota.", code: 'REALM_UPLOAD_QUOTA' });
  t.equal((await hamlet.call('GET', '/attachments')).body.upload_space_used, 700 * 1024, 'unchanged');
  t.equal(storedFiles(s).length, 1);
});

t.test('who may read a file: uploader, readers of a linking message; temporary URLs', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const up = (await upload(s, hamlet, [['file', 'secret plans', 'plans.txt', 'text/plain']])).body;
  const missing = up.uri.replace(/plans\.txt$/, 'other.txt');
  const notAllowed = await getFile(s, up.uri, othello);
  const unknown = await getFile(s, missing, othello);
  t.equal(notAllowed.status, 404);
  t.same([notAllowed.status, notAllowed.bytes.toString()], [unknown.status, unknown.bytes.toString()], 'not allowed = missing');
  t.equal((await getFile(s, up.uri, null)).status, 401, 'no credentials');
  const [realmId, hex, random, name] = up.uri.slice('/user_uploads/'.length).split('/');
  t.same((await othello.call('GET', `/user_uploads/${realmId}/${hex}/${random}/${name}`)).body, { result: 'error', msg: 'File not found', code: 'BAD_REQUEST' });

  // A direct message to cordelia shares it with cordelia only.
  const sent = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/messages', { type: 'direct', to: [cordelia.userId], content: `[plans](${up.uri})` }),
    numEvents: 2,
    stateChangeExpected: true,
  });
  const messageId = sent.actionResult.body.id;
  t.match(sent.events.find((e: any) => e.type === 'attachment'), { op: 'update', attachment: { messages: [{ id: messageId }] } });
  t.equal((await getFile(s, up.uri, cordelia)).bytes.toString(), 'secret plans', 'cordelia can read it');
  t.equal((await getFile(s, up.uri, othello)).status, 404, 'othello still cannot');
  t.same((await hamlet.call('GET', '/attachments')).body.attachments[0].messages.map((m: any) => m.id), [messageId]);
  t.equal((await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'has', operand: 'attachment' }] })).body.messages.length, 1, 'has:attachment');

  // The temporary URL works without credentials, for 60 s; a forged token does not.
  const temp = (await cordelia.call('GET', `/user_uploads/${realmId}/${hex}/${random}/${name}`)).body;
  t.match(temp.url, /^\/user_uploads\/temporary\/[^/]+\/plans\.txt$/);
  t.equal((await getFile(s, temp.url, null)).bytes.toString(), 'secret plans');
  const forged = temp.url.replace(/\.([A-Za-z0-9_-])/, (_m: string, c: string) => `.${c === 'A' ? 'B' : 'A'}`);
  t.same(JSON.parse((await getFile(s, forged, null)).bytes.toString()), bad('Invalid token'));
  t.same(JSON.parse((await getFile(s, temp.url.replace(/plans\.txt$/, 'x.txt'), null)).bytes.toString()), bad('Invalid filename'));

  // Othello may not claim a file he cannot read by linking it.
  await othello.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'steal', content: `[x](${up.uri})` });
  t.equal((await getFile(s, up.uri, othello)).status, 404, 'linking does not grant access');

  // Editing the link away detaches the upload.
  const edited = await hamlet.call('PATCH', `/messages/${messageId}`, { content: 'never mind' });
  t.equal(edited.body.detached_uploads.length, 1);
  t.equal(edited.body.detached_uploads[0].path_id, up.uri.slice('/user_uploads/'.length));
  t.equal((await getFile(s, up.uri, cordelia)).status, 404, 'cordelia lost access');
});
