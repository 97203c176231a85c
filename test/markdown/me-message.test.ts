/**
 * `/me` messages: Zulip's Markdown gives them no special markup (`<p>/me …</p>`); clients show
 * them as actions from `is_me_message` (Zulip's `Message.is_status_message`).
 */
import t from 'tap';
import { render } from './zulip-support.js';
import { isMeMessage } from '../../src/domain/messages.js';

t.test('/me renders as an ordinary paragraph, Markdown included', async (t) => {
  t.equal(render('/me waves'), '<p>/me waves</p>');
  t.equal(render('/me is **very** happy :smile:'),
    '<p>/me is <strong>very</strong> happy <span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>');
  t.ok(isMeMessage('/me waves'));
  t.notOk(isMeMessage('/mentions'));
  t.notOk(isMeMessage(' /me waves'));
});
