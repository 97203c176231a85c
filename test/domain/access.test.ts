/** Message access rules (https://zulip.com/api/get-message) on a small realm. */
import t from 'tap';
import { run, smallRealm } from '../support/realm-fixture.js';
import { canAccessMessage } from '../../src/domain/access.js';

t.test('who may read which message', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const post = (senderId: number, to: unknown, messageType: 'stream' | 'private' = 'stream') =>
    run(state, { type: 'send_message', senderId, messageType, to, topic: 't', content: 'x', client: 'test' }, ctx).id;
  const publicMsg = post(ids.member, 'general');
  const privateMsg = post(ids.member, streams.secret);
  const dm = post(ids.member, [ids.other], 'private');
  const user = (id: number) => state.users.get(id)!;

  t.ok(canAccessMessage(state, user(ids.other), publicMsg), 'member reads public channel');
  t.ok(canAccessMessage(state, user(ids.admin), publicMsg));
  t.notOk(canAccessMessage(state, user(ids.guest), publicMsg), 'guest not subscribed to public channel');
  t.ok(canAccessMessage(state, user(ids.owner), privateMsg), 'subscriber with a row');
  t.notOk(canAccessMessage(state, user(ids.other), privateMsg), 'non-subscriber of private channel');
  t.notOk(canAccessMessage(state, user(ids.admin), privateMsg), 'admins do not read private content');
  t.ok(canAccessMessage(state, user(ids.other), dm), 'DM recipient');
  t.ok(canAccessMessage(state, user(ids.member), dm), 'DM sender');
  t.notOk(canAccessMessage(state, user(ids.admin), dm), 'third party');
  t.notOk(canAccessMessage(state, user(ids.member), 999), 'unknown id');
  t.notOk(canAccessMessage(state, user(ids.member), 0));
  t.notOk(canAccessMessage(state, user(ids.member), -1));

  // protected history: a later subscriber has no row for the earlier message
  run(state, { type: 'subscribe', streamId: streams.secret, userIds: [ids.other] }, ctx);
  t.notOk(canAccessMessage(state, user(ids.other), privateMsg), 'protected history hides earlier messages');
  const later = post(ids.member, streams.secret);
  t.ok(canAccessMessage(state, user(ids.other), later), 'but not later ones');
});
