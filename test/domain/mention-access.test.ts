/**
 * Guests and mentions (Zulip's `can_access_all_users_group`, zerver/lib/mention.py
 * `get_full_name_info_list` → `get_inaccessible_user_ids`): a guest outside the group cannot
 * mention users they cannot access; the mention stays plain text, as for an unknown user, and
 * flags nobody. Accessible: bots, themself, active users sharing a channel or a group DM, and
 * users they exchanged a 1:1 direct message with. The default (`role:everyone`) restricts nobody.
 */
import t from 'tap';
import { decide, run, smallRealm, type SmallRealm } from '../support/realm-fixture.js';
import { renderMessageContent } from '../../src/realm/message-render.js';
import { canAccessAllUsers, canAccessUser } from '../../src/domain/access.js';
import { Flag } from '../../src/domain/message-index.js';
import type { MessageSent } from '../../src/domain/records.js';

const mention = (id: number, name: string) => `<span class="user-mention" data-user-id="${id}">@${name}</span>`;

/** Restricts guests: only `role:members` may access all users (Zulip's one allowed alternative). */
function restrict(r: SmallRealm): void {
  r.state.settings.groups['can_access_all_users_group'] = r.state.systemGroups.get('role:members')!;
}

function render(r: SmallRealm, senderId: number, content: string) {
  const rendering = renderMessageContent(r.state, content, { senderId, nowSeconds: r.ctx.now(), directUserIds: [senderId] });
  if ('code' in rendering) throw rendering;
  return rendering;
}

t.test('default role:everyone: guests mention anyone', async (t) => {
  const r = smallRealm();
  t.ok(canAccessAllUsers(r.state, r.state.users.get(r.ids.guest)!));
  t.equal(render(r, r.ids.guest, '@**Mary Member**').rendered, `<p>${mention(r.ids.member, 'Mary Member')}</p>`);
});

t.test('restricted guest: inaccessible users render as unknown mentions', async (t) => {
  const r = smallRealm();
  restrict(r);
  const { guest, member, bot, owner } = r.ids;
  t.notOk(canAccessAllUsers(r.state, r.state.users.get(guest)!));
  t.ok(canAccessAllUsers(r.state, r.state.users.get(owner)!), 'non-guests are never restricted');
  const unknown = render(r, guest, '@**Otto Other**');
  const plain = render(r, guest, '@**Nobody Atall**').rendered;
  t.equal(unknown.rendered, plain.replace('Nobody Atall', 'Otto Other'), 'rendered like a mention of an unknown name');
  t.notMatch(unknown.rendered, /user-mention/);
  t.notMatch(render(r, guest, `@**|${member}**`).rendered, /user-mention/, 'id syntax too');
  t.notMatch(render(r, guest, `@**Mary Member|${member}**`).rendered, /user-mention/, 'name|id syntax too');
  t.notMatch(render(r, guest, '@_**Mary Member**').rendered, /user-mention/, 'silent mentions too');
  t.equal(render(r, guest, '@**Test Bot**').rendered, `<p>${mention(bot, 'Test Bot')}</p>`, 'bots are always accessible');
  t.equal(render(r, guest, '@**Gus Guest**').rendered, `<p>${mention(guest, 'Gus Guest')}</p>`, 'themself');
  t.equal(render(r, member, '@**Otto Other**').rendered, `<p>${mention(r.ids.other, 'Otto Other')}</p>`, 'members are unaffected');
  t.equal(render(r, member, '@**Gus Guest**').rendered, `<p>${mention(guest, 'Gus Guest')}</p>`, 'anyone may mention the guest');
});

t.test('restricted guest: shared channels, 1:1 and group direct messages give access', async (t) => {
  const r = smallRealm();
  restrict(r);
  const { guest, member, owner, admin, other } = r.ids;
  const viewer = r.state.users.get(guest)!;
  t.notOk(canAccessUser(r.state, viewer, member));
  run(r.state, { type: 'subscribe', streamId: r.streams.empty, userIds: [guest, member] }, r.ctx);
  t.ok(canAccessUser(r.state, viewer, member), 'shared channel');
  t.equal(render(r, guest, '@**Mary Member**').rendered, `<p>${mention(member, 'Mary Member')}</p>`);
  t.notOk(canAccessUser(r.state, viewer, other), 'channels the guest is not in do not count');

  t.notOk(canAccessUser(r.state, viewer, owner));
  run(r.state, { type: 'send_message', senderId: owner, messageType: 'private', to: [guest], topic: undefined, content: 'hi', client: 'test' }, r.ctx);
  t.ok(canAccessUser(r.state, viewer, owner), '1:1 direct message');

  t.notOk(canAccessUser(r.state, viewer, admin));
  run(r.state, { type: 'send_message', senderId: other, messageType: 'private', to: [guest, admin], topic: undefined, content: 'hi', client: 'test' }, r.ctx);
  t.ok(canAccessUser(r.state, viewer, admin), 'group direct message');
  t.ok(canAccessUser(r.state, viewer, other), 'group direct message (sender)');
  t.equal(render(r, guest, '@**Adam Admin**').rendered, `<p>${mention(admin, 'Adam Admin')}</p>`);
  t.notOk(canAccessUser(r.state, viewer, 9999), 'unknown id');
});

t.test('restricted guest: deactivated users are accessible only through a 1:1 conversation', async (t) => {
  const r = smallRealm();
  restrict(r);
  const { guest, member, other, owner } = r.ids;
  const viewer = r.state.users.get(guest)!;
  run(r.state, { type: 'subscribe', streamId: r.streams.empty, userIds: [guest, member, other] }, r.ctx);
  run(r.state, { type: 'send_message', senderId: other, messageType: 'private', to: [guest], topic: undefined, content: 'hi', client: 'test' }, r.ctx);
  run(r.state, { type: 'deactivate_user', actorId: owner, userId: member }, r.ctx);
  run(r.state, { type: 'deactivate_user', actorId: owner, userId: other }, r.ctx);
  t.notOk(canAccessUser(r.state, viewer, member), 'shared channel of a deactivated user');
  t.ok(canAccessUser(r.state, viewer, other), '1:1 conversation with a deactivated user');
});

t.test('send path: no mention flag for an inaccessible user; accessible ones are flagged', async (t) => {
  const r = smallRealm();
  restrict(r);
  const { guest, member, other } = r.ids;
  run(r.state, { type: 'subscribe', streamId: r.streams.empty, userIds: [guest, member] }, r.ctx);
  // `other` shares nothing with the guest (so cannot be a recipient either): the mention is text.
  const result = decide(r.state, {
    type: 'send_message', senderId: guest, messageType: 'stream', to: 'empty', topic: 't',
    content: '@**Mary Member** @**Otto Other**', client: 'test',
  }, r.ctx);
  if (!result.ok) throw result.error;
  const sent = result.value.records.find((x) => x.type === 'message_sent') as MessageSent;
  t.equal(sent.rendered, `<p>${mention(member, 'Mary Member')} @<strong>Otto Other</strong></p>`);
  t.equal((sent.userFlags?.[member] ?? 0) & Flag.mentioned, Flag.mentioned, 'accessible user mentioned');
  t.equal(sent.userFlags?.[other], undefined, 'inaccessible user not flagged (and not a recipient)');
});
