/**
 * Inline previews of uploaded images (src/markdown/plugins/inline-previews.ts, Zulip's
 * zerver/lib/markdown `add_a` and zerver/lib/thumbnail.py `rewrite_thumbnailed_images`): an upload
 * the renderer knows as an image gets Zulip's thumbnail markup, or its loading placeholder while no
 * thumbnail exists; an upload it does not know stays a plain link.
 */
import t from 'tap';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';
import type { UploadPreview } from '../../src/markdown/plugins/inline-previews.js';
import { context } from './zulip-support.js';

const PATH = '2/ab/AbCdEfGhIjKlMnOpQrStUvWx/photo.png';

function render(content: string, previews: Record<string, UploadPreview>): string {
  return zulipRenderer.render(content, { realmUrl: 'https://chat.example.com', zulip: { ...context(), uploadPreview: (pathId) => previews[pathId] } });
}

const still: UploadPreview = { width: 1200, height: 900, thumbnailUrl: `/user_uploads/thumbnail/${PATH}/840x560.webp`, contentType: 'image/png', animated: false, transcodedFormat: null };

t.test('a thumbnailed upload: src first, then dimensions and content type', async (t) => {
  t.equal(render(`[photo.png](/user_uploads/${PATH})`, { [PATH]: still }),
    `<p><a href="/user_uploads/${PATH}">photo.png</a></p>\n` +
    `<div class="message_inline_image"><a href="/user_uploads/${PATH}" title="photo.png"><img src="/user_uploads/thumbnail/${PATH}/840x560.webp" data-original-dimensions="1200x900" data-original-content-type="image/png"></a></div>`);
});

t.test('animated and transcoded uploads carry data-animated / data-transcoded-image', async (t) => {
  const gif = { ...still, contentType: 'image/gif', animated: true, thumbnailUrl: `/user_uploads/thumbnail/${PATH}/840x560-anim.webp` };
  t.match(render(`[a](/user_uploads/${PATH})`, { [PATH]: gif }), `<img src="/user_uploads/thumbnail/${PATH}/840x560-anim.webp" data-original-dimensions="1200x900" data-original-content-type="image/gif" data-animated="true">`);
  const tiff = { ...still, contentType: 'image/tiff', transcodedFormat: '4032x3024.webp' };
  t.match(render(`[a](/user_uploads/${PATH})`, { [PATH]: tiff }), `data-original-content-type="image/tiff" data-transcoded-image="4032x3024.webp">`);
});

t.test('not yet thumbnailed: the loading placeholder', async (t) => {
  t.match(render(`[a](/user_uploads/${PATH})`, { [PATH]: { ...still, thumbnailUrl: null } }),
    '<img class="image-loading-placeholder" src="/static/images/loading/loader-black.svg" data-original-dimensions="1200x900" data-original-content-type="image/png">');
});

t.test('an upload that is not a known image: no preview', async (t) => {
  t.equal(render(`[a](/user_uploads/${PATH})`, {}), `<p><a href="/user_uploads/${PATH}">a</a></p>`);
  t.equal(render(`[a](/user_uploads/${PATH.replace('photo', 'other')})`, { [PATH]: still }), `<p><a href="/user_uploads/${PATH.replace('photo', 'other')}">a</a></p>`);
});
