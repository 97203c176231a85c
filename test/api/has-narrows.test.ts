/**
 * `has:attachment`, `has:image`, `has:link` narrows (https://zulip.com/api/construct-narrow) as
 * Zulip answers them from its Message flags: `has_attachment` = the message claimed an upload
 * (zerver/actions/uploads.py `do_claim_attachments`, updated on edit), `has_image` = the message
 * has an inline image preview (zerver/lib/markdown `add_a`), `has_link` = it holds a link.
 * The real server over HTTP, each narrow also negated.
 */
import sharp from 'sharp';
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { upload } from '../support/upload-client.js';

t.test('has: narrows follow claimed uploads and inline previews', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#808080' } }).png().toBuffer();
  const pic = (await upload(s, hamlet, [['file', new Uint8Array(image), 'pic.png', 'image/png']])).body.uri as string;
  const doc = (await upload(s, hamlet, [['file', 'minutes', 'minutes.txt', 'text/plain']])).body.uri as string;
  const realmId = pic.split('/')[2];
  const send = async (content: string) => (await hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'has', content })).body.id as number;
  const ids = {
    plain: await send('just words'),
    web: await send('see https://example.com/page'),
    externalImage: await send('https://example.com/cat.png'),
    uploadedImage: await send(`[pic.png](${pic})`),
    uploadedDoc: await send(`[minutes.txt](${doc})`),
    notAnUpload: await send(`[ghost](/user_uploads/${realmId}/ab/AAAAAAAAAAAAAAAAAAAAAAAA/ghost.txt)`),
  };
  const narrowed = async (operand: string, negated = false) => {
    const narrow = [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'has' }, { operator: 'has', operand, negated }];
    const reply = await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow });
    t.equal(reply.status, 200);
    return (reply.body.messages as Array<{ id: number }>).map((m) => m.id);
  };
  t.same(await narrowed('attachment'), [ids.uploadedImage, ids.uploadedDoc], 'claimed uploads only (a /user_uploads link to nothing is not one)');
  t.same(await narrowed('attachment', true), [ids.plain, ids.web, ids.externalImage, ids.notAnUpload]);
  t.same(await narrowed('image'), [ids.externalImage, ids.uploadedImage], 'inline image previews');
  t.same(await narrowed('image', true), [ids.plain, ids.web, ids.uploadedDoc, ids.notAnUpload]);
  t.same(await narrowed('link'), [ids.web, ids.externalImage, ids.uploadedImage, ids.uploadedDoc, ids.notAnUpload]);
  t.same(await narrowed('link', true), [ids.plain]);

  // Editing the upload link away clears has:attachment; editing one in sets it.
  t.equal((await hamlet.call('PATCH', `/messages/${ids.uploadedDoc}`, { content: 'no file any more' })).status, 200);
  t.equal((await hamlet.call('PATCH', `/messages/${ids.plain}`, { content: `now with [minutes.txt](${doc})` })).status, 200);
  t.same(await narrowed('attachment'), [ids.plain, ids.uploadedImage]);
  t.same((await hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'has', operand: 'nothing' }] })).body,
    { result: 'error', msg: "Invalid narrow operator: unknown 'has' operand nothing", code: 'BAD_NARROW', desc: "unknown 'has' operand nothing" });
});
