/**
 * Reusable invitations (https://zulip.com/api/create-invite-link,
 * https://zulip.com/api/http-headers, https://zulip.com/api/rest-error-handling,
 * https://zulip.com/api/register-queue; https://zulip.com/api/get-invites): every rule
 * of `create_multiuse_invite` / `revoke_multiuse_invite` with "state unchanged after error",
 * expiry, snapshots, and the HTTP endpoints with the `invites_changed` event via verifyAction.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, run, smallRealm } from '../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { invitesOf } from '../../src/domain/invites.js';
import type { Command } from '../../src/realm/commands.js';
import type { CreateMultiuseInvite } from '../../src/realm/handlers/invites.js';

const base = (actorId: number, over: Partial<CreateMultiuseInvite> = {}): CreateMultiuseInvite => ({
  type: 'create_multiuse_invite', actorId, expiresInMinutes: 14400, invitedAs: 400, streamIds: [], groupIds: [],
  includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: null, ...over,
});

function systemGroupId(state: ReturnType<typeof smallRealm>['state'], name: string): number {
  for (const g of state.groups.values()) if (g.name === name) return g.id;
  throw new Error(name);
}

t.test('handlers: create records the invite with a 24-char base32 key, expiry, role, channels, groups', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const r = decide(state, base(ids.admin, { streamIds: [streams.general, streams.general], welcomeMessageCustomText: 'Hi!' }), ctx);
  if (!r.ok) throw r.error;
  t.match(r.value.reply.key, /^[a-z2-7]{24}$/);
  const rec = r.value.records[0] as any;
  t.equal(rec.type, 'multiuse_invite_created');
  t.equal(rec.invite.expiresAt - rec.invite.invitedAt, 14400 * 60);
  t.same(rec.invite.streamIds, [streams.general]);
  t.equal(rec.invite.welcomeMessageCustomText, 'Hi!');
  t.same(r.value.events[0]!.payload, { type: 'invites_changed' });
  t.same(r.value.events[0]!.userIds, [ids.owner, ids.admin]);

  const never = run(state, base(ids.admin, { expiresInMinutes: null }), ctx);
  t.equal(invitesOf(state).items.find((i) => i.id === never.inviteId)!.expiresAt, null, 'null = never expires');

  // Snapshot round trip; a snapshot from before invitations loads with none.
  const { core, columns } = toSnapshot(state);
  t.same(invitesOf(fromSnapshot(1, structuredClone(core), columns)), invitesOf(state));
  const { invites: _dropped, ...oldCore } = core as typeof core & { invites?: unknown };
  t.same(invitesOf(fromSnapshot(1, structuredClone(oldCore), columns)).items, []);
});

t.test('handlers: non-administrators with permission; custom text dropped for them', async (t) => {
  const { state, ctx, ids } = smallRealm();
  state.settings.groups.create_multiuse_invite_group = systemGroupId(state, 'role:members');
  const reply = run(state, base(ids.member, { welcomeMessageCustomText: 'ignored' }), ctx);
  const invite = invitesOf(state).items.find((i) => i.id === reply.inviteId)!;
  t.equal(invite.welcomeMessageCustomText, null);
  t.equal(invite.invitedById, ids.member);
});

t.test('handlers: every error leaves the state unchanged', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const created = run(state, base(ids.admin), ctx);
  const before = fingerprint(state);
  const cases: Array<[Command, string]> = [
    [base(ids.guest), 'Not allowed for guest users'],
    [base(ids.bot), 'This endpoint does not accept bot requests.'],
    [base(ids.member), 'Insufficient permission'],
    [base(ids.admin, { invitedAs: 500 }), 'Invalid invite_as'],
    [base(ids.admin, { invitedAs: 100 }), 'Must be an organization owner'],
    [base(ids.admin, { streamIds: [9999] }), 'Invalid channel ID 9999. No invites were sent.'],
    [base(ids.admin, { groupIds: [9999] }), 'Invalid user group'],
    [base(ids.admin, { welcomeMessageCustomText: 'x'.repeat(8001) }), 'welcome_message_custom_text is too long (limit: 8000 characters)'],
    [{ type: 'revoke_multiuse_invite', actorId: ids.admin, inviteId: 999 }, 'No such invitation'],
    [{ type: 'revoke_multiuse_invite', actorId: ids.other, inviteId: created.inviteId }, 'Must be an organization administrator'],
  ];
  for (const [cmd, msg] of cases) {
    const r = decide(state, cmd, ctx);
    t.equal(r.ok ? 'ok' : r.error.message, msg, msg);
  }
  t.equal(fingerprint(state), before, 'state unchanged');
  // Members allowed to invite, but without the realm's subscribe permission.
  state.settings.groups.create_multiuse_invite_group = systemGroupId(state, 'role:members');
  const before2 = fingerprint(state);
  const hidden = decide(state, base(ids.other, { streamIds: [streams.secret] }), ctx);
  t.equal(hidden.ok ? 'ok' : hidden.error.message, `Invalid channel ID ${streams.secret}. No invites were sent.`, 'inaccessible channel');
  const mod = decide(state, base(ids.member, { invitedAs: 300 }), ctx);
  t.equal(mod.ok ? 'ok' : mod.error.message, 'Must be an organization administrator', 'no more privileged than the requester');
  const saved = state.settings.groups.can_add_subscribers_group!;
  state.settings.groups.can_add_subscribers_group = systemGroupId(state, 'role:administrators');
  const before3 = fingerprint(state);
  const perm = decide(state, base(ids.member, { streamIds: [streams.general] }), ctx);
  t.equal(perm.ok ? 'ok' : perm.error.message, 'You do not have permission to subscribe other users to channels.');
  t.equal(fingerprint(state), before3, 'state unchanged');
  state.settings.groups.can_add_subscribers_group = saved;
  t.equal(fingerprint(state), before2, 'state unchanged');
  const withDefaults = decide(state, base(ids.member, { includeRealmDefaultSubscriptions: true }), ctx);
  t.ok(withDefaults.ok, 'include_realm_default_subscriptions needs no subscribe permission');

  run(state, { type: 'revoke_multiuse_invite', actorId: ids.owner, inviteId: created.inviteId }, ctx);
  const again = decide(state, { type: 'revoke_multiuse_invite', actorId: ids.admin, inviteId: created.inviteId }, ctx);
  t.equal(again.ok ? 'ok' : again.error.message, 'Invitation has already been revoked');
});

// ------------------------------------------------------------------------------------------
// HTTP

t.test('POST /invites/multiuse, GET /invites, DELETE /invites/multiuse/{id}', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const verona = (await iago.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;

  const created = await verifyAction(t, s, desdemona, {
    eventTypes: ['invites_changed'], numEvents: 1, stateChangeExpected: false,
    action: () => iago.call('POST', '/invites/multiuse', { invite_as: 600, stream_ids: [verona], invite_expires_in_minutes: 60 }),
  });
  t.equal(created.events[0]!.type, 'invites_changed');
  const link = created.actionResult.body.invite_link as string;
  t.match(link, new RegExp(`^${s.url.replace(/\./g, '\\.')}/join/[a-z2-7]{24}/$`));

  const list = await iago.call('GET', '/invites');
  t.equal(list.body.invites.length, 1);
  const entry = list.body.invites[0];
  t.same(Object.keys(entry).sort(), ['expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'link_url']);
  t.equal(entry.link_url, link);
  t.equal(entry.invited_as, 600);
  t.equal(entry.expiry_date - entry.invited, 3600);
  t.equal(entry.is_multiuse, true);

  const never = await iago.call('POST', '/invites/multiuse', { invite_expires_in_minutes: null });
  t.equal(never.status, 200);
  const all = (await iago.call('GET', '/invites')).body.invites;
  t.equal(all.find((i: any) => i.link_url === never.body.invite_link).expiry_date, null);

  t.same((await hamlet.call('GET', '/invites')).body.invites, [], 'members see only their own');
  const denied = await hamlet.call('POST', '/invites/multiuse', {});
  t.same([denied.status, denied.body.msg], [400, 'Insufficient permission']);
  const guest = await polonius.call('POST', '/invites/multiuse', {});
  t.same([guest.status, guest.body.msg], [400, 'Not allowed for guest users']);
  const tooLong = await iago.call('POST', '/invites/multiuse', { welcome_message_custom_text: 'x'.repeat(8001) });
  t.equal(tooLong.status, 400);
  const bad = await iago.call('POST', '/invites/multiuse', { stream_ids: [9999] });
  t.same(bad.body.msg, 'Invalid channel ID 9999. No invites were sent.');
  t.equal((await iago.call('GET', '/invites')).body.invites.length, 2, 'nothing created by failures');

  const del = await verifyAction(t, s, desdemona, {
    eventTypes: ['invites_changed'], numEvents: 1, stateChangeExpected: false,
    action: () => iago.call('DELETE', `/invites/multiuse/${entry.id}`),
  });
  t.equal(del.actionResult.status, 200);
  t.equal((await iago.call('GET', '/invites')).body.invites.length, 1, 'revoked invites are not listed');
  const twice = await iago.call('DELETE', `/invites/multiuse/${entry.id}`);
  t.same(twice.body.msg, 'Invitation has already been revoked');
  const missing = await iago.call('DELETE', '/invites/multiuse/999');
  t.same(missing.body.msg, 'No such invitation');
});
