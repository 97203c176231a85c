/**
 * Email invitation rules (https://zulip.com/api/send-invites; zerver/actions/invites.py
 * `do_invite_users`, `check_invite_limit`; zerver/views/invite.py): every error leaves the state
 * unchanged; partial success keeps the skipped addresses; revoke / resend / accept; snapshots.
 */
import t from 'tap';
import { decide, fingerprint, rejects, run, smallRealm } from '../../support/realm-fixture.js';
import { emailInvitesOf, INVITES_DAILY_MAX } from '../../../src/domain/email-invites.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import type { InviteUsers } from '../../../src/realm/handlers/email-invites.js';
import { LINK_EXPIRED } from '../../../src/realm/handlers/invites.js';

const invite = (actorId: number, emails: string[], over: Partial<InviteUsers> = {}): InviteUsers => ({
  type: 'invite_users', actorId, emails, expiresInMinutes: 60, invitedAs: 400, streamIds: [], groupIds: [],
  includeRealmDefaultSubscriptions: false, notifyReferrerOnJoin: true, welcomeMessageCustomText: null, ...over,
});

function groupId(state: ReturnType<typeof smallRealm>['state'], name: string): number {
  for (const g of state.groups.values()) if (g.name === name) return g.id;
  throw new Error(name);
}

t.test('invite_users: one invite per new address, keys, expiry, event; existing accounts skipped', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const r = decide(state, invite(ids.member, ['new@example.com', 'MEMBER@example.com', 'new@example.com', ' '], { streamIds: [streams.general] }), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.reply.skipped, [['MEMBER@example.com', 'Already has an account.', false]]);
  t.equal(r.value.reply.invited.length, 1);
  const inv = r.value.reply.invited[0]!;
  t.match(inv.key, /^[a-z2-7]{24}$/);
  t.equal(inv.expiresAt! - inv.invitedAt, 3600);
  t.same(r.value.events[0]!.payload, { type: 'invites_changed' });
  t.same(r.value.events[0]!.userIds, [ids.owner, ids.admin, ids.member], 'administrators and the inviter');
  run(state, invite(ids.member, ['new2@example.com']), ctx);
  t.same(emailInvitesOf(state).map((i) => [i.id, i.email]), [[1, 'new2@example.com']]);
  const { core, columns } = toSnapshot(state);
  t.same(emailInvitesOf(fromSnapshot(1, structuredClone(core), columns)), emailInvitesOf(state), 'snapshot round trip');
});

t.test('invite_users: every error leaves the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  rejects(t, state, invite(ids.guest, ['a@example.com']), ctx, 'Not allowed for guest users');
  rejects(t, state, invite(ids.bot, ['a@example.com']), ctx, 'This endpoint does not accept bot requests.');
  rejects(t, state, invite(ids.member, ['a@example.com'], { invitedAs: 200 }), ctx, 'Must be an organization administrator');
  rejects(t, state, invite(ids.admin, ['a@example.com'], { invitedAs: 100 }), ctx, 'Must be an organization owner');
  rejects(t, state, invite(ids.admin, ['a@example.com'], { invitedAs: 500 }), ctx, 'Invalid invite_as');
  rejects(t, state, invite(ids.admin, ['', ' ']), ctx, 'You must specify at least one email address.');
  rejects(t, state, invite(ids.other, ['a@example.com'], { streamIds: [streams.secret] }), ctx, `Invalid channel ID ${streams.secret}. No invites were sent.`);
  rejects(t, state, invite(ids.admin, ['a@example.com', 'not-an-address']), ctx, "Some emails did not validate, so we didn't send any invitations.");
  rejects(t, state, invite(ids.admin, ['member@example.com', 'admin@example.com']), ctx, "We weren't able to invite anyone.");
  const bad = decide(state, invite(ids.admin, ['x@example.com', 'nope']), ctx);
  t.same(bad.ok ? null : bad.error.toBody(), {
    result: 'error', msg: "Some emails did not validate, so we didn't send any invitations.", code: 'INVITATION_FAILED',
    errors: [['nope', 'Invalid address.', false]], sent_invitations: false, license_limit_reached: false, daily_limit_reached: false,
  });
  state.realmDomains = [{ domain: 'example.com', allowSubdomains: false }];
  state.settings.emailsRestrictedToDomains = true;
  const outside = decide(state, invite(ids.admin, ['x@example.com', 'y@elsewhere.org']), ctx);
  t.same(outside.ok ? null : outside.error.data.errors, [['y@elsewhere.org', 'Outside your domain.', false]], 'the realm\'s email domains');
  state.settings.emailsRestrictedToDomains = false;
  state.settings.groups.can_invite_users_group = groupId(state, 'role:administrators');
  rejects(t, state, invite(ids.member, ['a@example.com']), ctx, 'Insufficient permission');
});

t.test('invite_users: the per-day limit', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const many = Array.from({ length: INVITES_DAILY_MAX - 1 }, (_, i) => `p${i}@example.com`);
  run(state, invite(ids.admin, many), ctx);
  const r = decide(state, invite(ids.admin, ['one@example.com', 'two@example.com']), ctx);
  t.equal(r.ok ? 'ok' : r.error.data.daily_limit_reached, true, 'daily_limit_reached');
  rejects(t, state, invite(ids.admin, ['one@example.com', 'two@example.com']), ctx,
    'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.');
  run(state, invite(ids.admin, ['one@example.com']), ctx);
});

t.test('revoke, resend, accept', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const mine = run(state, invite(ids.member, ['a@example.com', 'b@example.com'], { streamIds: [streams.general] }), ctx).invited;
  rejects(t, state, { type: 'revoke_email_invite', actorId: ids.other, inviteId: mine[0]!.id }, ctx, 'Must be an organization administrator');
  rejects(t, state, { type: 'revoke_email_invite', actorId: ids.admin, inviteId: 99 }, ctx, 'No such invitation');
  rejects(t, state, { type: 'resend_email_invite', actorId: ids.other, inviteId: mine[0]!.id }, ctx, 'Must be an organization administrator');
  run(state, { type: 'revoke_email_invite', actorId: ids.admin, inviteId: mine[0]!.id }, ctx);
  rejects(t, state, { type: 'revoke_email_invite', actorId: ids.member, inviteId: mine[0]!.id }, ctx, 'No such invitation');
  rejects(t, state, { type: 'accept_email_invite', key: mine[0]!.key, fullName: 'Ann', passwordHash: 'x', timezone: '' }, ctx, LINK_EXPIRED);

  const resent = run(state, { type: 'resend_email_invite', actorId: ids.member, inviteId: mine[1]!.id }, ctx);
  const after = emailInvitesOf(state).find((i) => i.id === mine[1]!.id)!;
  t.equal(resent.timestamp, Math.floor(after.invitedAt));
  t.ok(after.invitedAt > mine[1]!.invitedAt, 'invited time reset');
  t.equal(after.expiresAt! - after.invitedAt, 3600, 'same validity, counted again');

  const decided = decide(state, { type: 'accept_email_invite', key: after.key, fullName: 'Bea', passwordHash: 'h', timezone: '' }, ctx);
  if (!decided.ok) throw decided.error;
  t.same(decided.value.followUps!.filter((f) => f.type === 'internal_send' && (f as any).to?.[0] === ids.member).map((f: any) => f.content),
    ['Bea <`b@example.com`> accepted your invitation to join Zulip!'], 'the referrer is told');
  t.ok(decided.value.events.some((e) => e.payload.type === 'invites_changed' && e.userIds.includes(ids.member)), 'invites_changed to the inviter');
  const joined = run(state, { type: 'accept_email_invite', key: after.key, fullName: 'Bea', passwordHash: 'h', timezone: '' }, ctx);
  const bea = state.users.get(joined.userId)!;
  t.equal(bea.email, 'b@example.com', 'the invited address');
  t.ok(state.subscriptions.get(streams.general)!.has(bea.id), 'the invite\'s channel');
  t.equal(emailInvitesOf(state).find((i) => i.id === mine[1]!.id)!.status, 'used');
  rejects(t, state, { type: 'accept_email_invite', key: after.key, fullName: 'Bea', passwordHash: 'h', timezone: '' }, ctx, LINK_EXPIRED);
});

t.test('expired invites cannot be used', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const [inv] = run(state, invite(ids.admin, ['late@example.com'], { expiresInMinutes: 0 }), ctx).invited;
  const before = fingerprint(state);
  const r = decide(state, { type: 'accept_email_invite', key: inv!.key, fullName: 'Late', passwordHash: 'h', timezone: '' }, ctx);
  t.equal(r.ok ? 'ok' : r.error.message, LINK_EXPIRED);
  t.equal(fingerprint(state), before);
});

t.test('signing up through a reusable link uses up the address\'s email invitations', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const [inv] = run(state, invite(ids.member, ['c@example.com']), ctx).invited;
  const link = run(state, { type: 'create_multiuse_invite', actorId: ids.admin, expiresInMinutes: 60, invitedAs: 400, streamIds: [], groupIds: [], includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: null }, ctx);
  const decided = decide(state, { type: 'accept_multiuse_invite', key: link.key, email: 'C@example.com', fullName: 'Cee', passwordHash: 'h', timezone: '' }, ctx);
  if (!decided.ok) throw decided.error;
  t.ok(decided.value.events.some((e) => e.payload.type === 'invites_changed' && e.userIds.includes(ids.member)), 'the email inviter is told');
  run(state, { type: 'accept_multiuse_invite', key: link.key, email: 'C@example.com', fullName: 'Cee', passwordHash: 'h', timezone: '' }, ctx);
  t.equal(emailInvitesOf(state).find((i) => i.id === inv!.id)!.status, 'used');
  rejects(t, state, { type: 'accept_email_invite', key: inv!.key, fullName: 'Cee', passwordHash: 'h', timezone: '' }, ctx, LINK_EXPIRED);
});
