/**
 * User administration handlers (https://zulip.com/api/update-user,
 * https://zulip.com/api/get-users): every rule and error
 * string of `update_user`, `deactivate_user` and `reactivate_user`, each error with "state
 * unchanged", the check order, events and their recipients, and records surviving a snapshot
 * round trip and replay.
 */
import t from 'tap';
import { decide, field, fingerprint, run, smallRealm, rejects } from '../../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { emptyRealmState, Role, type RealmState } from '../../../src/domain/realm-state.js';
import { evolve } from '../../../src/domain/evolve.js';
import type { RealmRecord } from '../../../src/domain/records.js';
import type { CommandContext } from '../../../src/realm/decision.js';
import type { Command } from '../../../src/realm/commands.js';
import type { UpdateUser } from '../../../src/realm/handlers/user-admin.js';
import type { AddBot, AdminCreateUser } from '../../../src/realm/handlers/user-create.js';
import { isValidTimezone } from '../../../src/realm/handlers/user-settings.js';


const update = (actorId: number, userId: number, over: Partial<UpdateUser> = {}): UpdateUser => ({ type: 'update_user', actorId, userId, ...over });

t.test('update_user: access and role rules, in Zulip order', async (t) => {
  const { state, ctx, ids } = smallRealm();
  rejects(t, state, update(ids.admin, 999, { fullName: 'Xy' }), ctx, 'No such user');
  rejects(t, state, update(ids.member, ids.other, { fullName: 'Xy' }), ctx, 'Insufficient permission');
  rejects(t, state, update(ids.other, ids.bot, { fullName: 'Xy' }), ctx, 'Insufficient permission');
  rejects(t, state, update(ids.guest, ids.member, { role: Role.owner }), ctx, 'Insufficient permission');
  rejects(t, state, update(ids.admin, ids.member, { role: 500 }), ctx, 'Invalid role');
  rejects(t, state, update(ids.admin, ids.member, { role: Role.owner }), ctx, 'Must be an organization owner');
  rejects(t, state, update(ids.admin, ids.owner, { role: Role.member }), ctx, 'Must be an organization owner');
  rejects(t, state, update(ids.member, ids.bot, { role: Role.admin }), ctx, 'Must be an organization administrator');
  rejects(t, state, update(ids.owner, ids.owner, { role: Role.admin }), ctx, 'The owner permission cannot be removed from the only organization owner.');
  // Seed §4.12: a guest is never made an administrator directly (a guest → member change still works).
  rejects(t, state, update(ids.owner, ids.guest, { role: Role.admin }), ctx, 'Guests cannot be organization administrators');
  rejects(t, state, update(ids.admin, ids.guest, { role: Role.admin }), ctx, 'Guests cannot be organization administrators');
  t.ok(decide(state, update(ids.admin, ids.guest, { role: Role.member }), ctx).ok, 'guest → member is allowed');
  // Same role: nothing to check, nothing recorded.
  const same = decide(state, update(ids.admin, ids.owner, { role: Role.owner }), ctx);
  t.ok(same.ok && same.value.records.length === 0 && same.value.events.length === 0, 'unchanged role is a no-op');

  // Admin promotes a member to admin: one record, realm_user then system-group events to all active users.
  const r = decide(state, update(ids.admin, ids.member, { role: Role.admin }), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.records, [{ type: 'user_updated', v: 1, userId: ids.member, role: Role.admin }]);
  t.same(r.value.events.map((e) => e.payload.type), ['realm_user', 'user_group', 'user_group', 'user_group']);
  t.same(r.value.events[0]!.payload, { type: 'realm_user', op: 'update', person: { user_id: ids.member, role: Role.admin } });
  const sys = (name: string) => state.systemGroups.get(name)!;
  t.same(r.value.events.slice(1).map((e) => [field(e, 'op'), field(e, 'group_id')]), [
    ['remove_members', Math.min(sys('role:fulltimemembers'), sys('role:members'))],
    ['remove_members', Math.max(sys('role:fulltimemembers'), sys('role:members'))],
    ['add_members', sys('role:administrators')],
  ]);
  t.same([...r.value.events[0]!.userIds].sort(), Object.values(ids).sort());

  // A second owner lets the first step down; the last one is then protected again.
  run(state, update(ids.owner, ids.admin, { role: Role.owner }), ctx);
  run(state, update(ids.admin, ids.owner, { role: Role.member }), ctx);
  t.equal(state.users.get(ids.owner)!.role, Role.member);
  rejects(t, state, update(ids.admin, ids.admin, { role: Role.admin }), ctx, 'The owner permission cannot be removed from the only organization owner.');
  // A bot owner never counts as the "other owner".
  run(state, update(ids.admin, ids.bot, { role: Role.owner }), ctx);
  rejects(t, state, update(ids.admin, ids.admin, { role: Role.admin }), ctx, 'The owner permission cannot be removed from the only organization owner.');
});

t.test('update_user: full_name, profile_data, new_email', async (t) => {
  const { state, ctx, ids } = smallRealm();
  for (const [name, msg] of [
    ['x', 'Name too short!'],
    ['y'.repeat(101), 'Name too long!'],
    ['a*b', 'Invalid characters in name!'],
    ['Ab\u0007', 'Invalid characters in name!'],
    ['Mary|42', 'Invalid format!'],
  ] as const) rejects(t, state, update(ids.admin, ids.member, { fullName: name }), ctx, msg);
  // Errors late in the request undo nothing because nothing was recorded.
  rejects(t, state, update(ids.admin, ids.member, { role: Role.moderator, fullName: 'Mary M', profileData: [{ id: 77, value: 'x' }] }), ctx, 'Field id 77 not found.');
  const blank = decide(state, update(ids.admin, ids.member, { fullName: '   ' }), ctx);
  t.ok(blank.ok && blank.value.records.length === 0, 'blank name ignored');
  const r = run(state, update(ids.member, ids.bot, { fullName: '  Shiny Bot ' }), ctx);
  t.same(r, {});
  t.equal(state.users.get(ids.bot)!.fullName, 'Shiny Bot', 'bot owner renames the bot, stripped');

  // profile_data through the custom-profile-field validators.
  const field = run(state, { type: 'create_custom_profile_field', actorId: ids.admin, fieldType: 4, name: 'Birthday', hint: '', fieldData: {}, displayInProfileSummary: false, required: false, editableByUser: false }, ctx).id;
  rejects(t, state, update(ids.admin, ids.member, { profileData: [{ id: field, value: 'not a date' }] }), ctx, 'Birthday is not a date');
  const set = decide(state, update(ids.admin, ids.member, { profileData: [{ id: field, value: '2000-01-02' }] }), ctx);
  if (!set.ok) throw set.error;
  t.same(set.value.events[0]!.payload, { type: 'realm_user', op: 'update', person: { user_id: ids.member, custom_profile_field: { id: field, value: '2000-01-02' } } });
  run(state, update(ids.admin, ids.member, { profileData: [{ id: field, value: '2000-01-02' }] }), ctx);
  t.equal(state.profileFields.values.get(ids.member)!.get(field)!.value, '2000-01-02', 'admins set fields not editable by users');
  const again = decide(state, update(ids.admin, ids.member, { profileData: [{ id: field, value: '2000-01-02' }] }), ctx);
  t.ok(again.ok && again.value.records.length === 0, 'unchanged value: no record');
  run(state, update(ids.admin, ids.member, { profileData: [{ id: field, value: null }] }), ctx);
  t.notOk(state.profileFields.values.get(ids.member)?.has(field), 'null deletes');

  // new_email: owners only, valid, unique (case-insensitively); email index follows.
  rejects(t, state, update(ids.admin, ids.member, { newEmail: 'mary@example.com' }), ctx, 'User not authorized to change user emails');
  rejects(t, state, update(ids.owner, ids.member, { newEmail: 'nope' }), ctx, 'Invalid address.');
  rejects(t, state, update(ids.owner, ids.member, { newEmail: 'ADMIN@example.com' }), ctx, "Email 'ADMIN@example.com' already in use");
  const moved = decide(state, update(ids.owner, ids.member, { newEmail: 'Mary@Example.com' }), ctx);
  if (!moved.ok) throw moved.error;
  t.same(moved.value.records, [{ type: 'user_updated', v: 1, userId: ids.member, email: 'mary@example.com' }]);
  run(state, update(ids.owner, ids.member, { newEmail: 'Mary@Example.com' }), ctx);
  t.equal(state.usersByEmail.get('mary@example.com'), ids.member);
  t.notOk(state.usersByEmail.has('member@example.com'));
});

t.test('delivery_email event goes only to users who may see it', async (t) => {
  const { state, ctx, ids } = smallRealm();
  state.users.get(ids.member)!.emailAddressVisibility = 3; // administrators only
  const r = decide(state, update(ids.owner, ids.member, { newEmail: 'mary@example.com' }), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.events.map((e) => Object.keys(field(e, 'person') as object)), [['user_id', 'delivery_email'], ['user_id', 'avatar_source', 'avatar_url', 'avatar_url_medium', 'avatar_version']]);
  t.same([...r.value.events[0]!.userIds].sort(), [ids.owner, ids.admin, ids.member].sort(), 'administrators and the user');
});

t.test('deactivate_user / reactivate_user', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const deactivate = (actorId: number, userId: number): Command => ({ type: 'deactivate_user', actorId, userId });
  const reactivate = (actorId: number, userId: number): Command => ({ type: 'reactivate_user', actorId, userId });
  rejects(t, state, deactivate(ids.admin, 999), ctx, 'No such user');
  rejects(t, state, deactivate(ids.admin, ids.bot), ctx, 'No such user');
  rejects(t, state, deactivate(ids.member, ids.other), ctx, 'Insufficient permission');
  rejects(t, state, deactivate(ids.admin, ids.owner), ctx, 'Must be an organization owner');
  rejects(t, state, deactivate(ids.owner, ids.owner), ctx, 'Cannot deactivate the only organization owner');
  rejects(t, state, reactivate(ids.admin, ids.other), ctx, 'User is already active');
  rejects(t, state, reactivate(ids.admin, 999), ctx, 'No such user');

  const group = run(state, { type: 'create_user_group', actorId: ids.admin, name: 'crew', description: '', members: [ids.other], subgroups: [], settings: {} }, ctx);
  void group;
  const off = decide(state, deactivate(ids.admin, ids.other), ctx);
  if (!off.ok) throw off.error;
  t.same(off.value.records, [{ type: 'user_updated', v: 1, userId: ids.other, isActive: false }]);
  t.same(off.value.events[0]!.payload, { type: 'realm_user', op: 'update', person: { user_id: ids.other, is_active: false } });
  t.notOk(off.value.events[0]!.userIds.includes(ids.other), 'not sent to the deactivated user');
  t.equal(off.value.events.filter((e) => field(e, 'op') === 'remove_members').length, 3, 'two role groups + the user-defined group');
  run(state, deactivate(ids.admin, ids.other), ctx);
  t.equal(state.users.get(ids.other)!.isActive, false);
  rejects(t, state, deactivate(ids.admin, ids.other), ctx, 'User is deactivated');
  rejects(t, state, { type: 'update_user', actorId: ids.other, userId: ids.member, fullName: 'Xy' }, ctx, 'Insufficient permission');
  run(state, update(ids.admin, ids.other, { fullName: 'Otto Gone' }), ctx);

  const on = decide(state, reactivate(ids.admin, ids.other), ctx);
  if (!on.ok) throw on.error;
  t.ok(on.value.events[0]!.userIds.includes(ids.other), 'reactivated user is told too');
  t.same(on.value.events.slice(1).map((e) => field(e, 'op')), ['add_members', 'add_members', 'add_members']);
  run(state, reactivate(ids.admin, ids.other), ctx);
  t.equal(state.users.get(ids.other)!.isActive, true);
  // Bots may be reactivated by their owner.
  state.users.get(ids.bot)!.isActive = false;
  t.same(run(state, reactivate(ids.member, ids.bot), ctx), {});
});

t.test('records survive snapshot and replay', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const records: RealmRecord[] = [];
  const apply = (cmd: Command) => {
    const r = decide(state, cmd, ctx);
    if (!r.ok) throw r.error;
    for (const rec of r.value.records) {
      records.push(rec);
      evolve(state, rec);
    }
  };
  const base = fromSnapshot(1, toSnapshot(state).core, toSnapshot(state).columns);
  apply(update(ids.owner, ids.member, { role: Role.moderator, fullName: 'Mary Mod', newEmail: 'mod@example.com' }));
  apply({ type: 'deactivate_user', actorId: ids.owner, userId: ids.other });
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(1, core, columns);
  t.equal(fingerprint(restored), fingerprint(state), 'snapshot round trip');
  for (const rec of records) evolve(base, rec);
  t.equal(fingerprint(base), fingerprint(state), 'replay');
  t.equal(restored.usersByEmail.get('mod@example.com'), ids.member);
  t.throws(() => evolve(emptyRealmState(2), { type: 'user_updated', v: 1, userId: 1, fullName: 'X' }));
});

t.test('admin_create_user: permission, checks, events per email visibility', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const create = (actorId: number, over: Partial<AdminCreateUser> = {}): AdminCreateUser => ({ type: 'admin_create_user', actorId, email: 'new@example.com', fullName: 'Nina New', passwordHash: 'h', ...over });
  rejects(t, state, create(ids.member), ctx, 'Must be an organization administrator');
  rejects(t, state, create(ids.admin), ctx, 'User not authorized to create users');
  rejects(t, state, create(ids.owner, { fullName: 'N' }), ctx, 'Name too short!');
  rejects(t, state, create(ids.owner, { email: 'bad' }), ctx, 'Bad name or username');
  rejects(t, state, create(ids.owner, { email: 'Admin@example.com' }), ctx, "Email 'Admin@example.com' already in use");
  state.settings.emailAddressVisibility = 3; // administrators only
  const r = decide(state, create(ids.owner), ctx);
  if (!r.ok) throw r.error;
  const adds = r.value.events.filter((e) => field(e, 'op') === 'add' && e.payload.type === 'realm_user');
  t.equal(adds.length, 2, 'one variant per email visibility');
  t.same([...adds[0]!.userIds].sort(), [ids.owner, ids.admin].sort());
  t.equal((field(adds[0]!, 'person') as { delivery_email?: unknown }).delivery_email, 'new@example.com');
  t.equal((field(adds[1]!, 'person') as { delivery_email?: unknown }).delivery_email, null);
  t.match(field(adds[1]!, 'person'), { email: `user${r.value.reply.userId}@chat.example.com`, role: Role.member, profile_data: {} });
  run(state, create(ids.owner), ctx);
  t.equal(state.users.get(r.value.reply.userId)!.passwordHash, 'h');
});

t.test('update_settings and time zone validation', async (t) => {
  const { state, ctx, ids } = smallRealm();
  for (const tz of ['UTC', 'Europe/London', 'America/Argentina/Buenos_Aires', 'US/Eastern', 'Etc/GMT+5']) t.ok(isValidTimezone(tz), tz);
  for (const tz of ['', 'utc', 'europe/london', 'Mars/Olympus', '../etc', 'Europe/London ']) t.notOk(isValidTimezone(tz), JSON.stringify(tz));
  const settings = (actorId: number, over: Record<string, unknown>): Command => ({ type: 'update_settings', actorId, ...over }) as Command;
  rejects(t, state, settings(ids.bot, { fullName: 'Bot Two' }), ctx, 'This endpoint does not accept bot requests.');
  rejects(t, state, settings(ids.member, { fullName: '' }), ctx, 'Name too short!');
  rejects(t, state, settings(ids.member, { timezone: 'Nowhere' }), ctx, "Invalid timezone 'Nowhere'");
  rejects(t, state, settings(ids.member, { emailAddressVisibility: 0 }), ctx, 'Invalid email_address_visibility');
  rejects(t, state, settings(ids.member, { fullName: 'Mary Q', emailAddressVisibility: 6 }), ctx, 'Invalid email_address_visibility');
  const r = decide(state, settings(ids.member, { fullName: 'Mary Q', timezone: 'Asia/Kolkata', emailAddressVisibility: 5 }), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.records, [{ type: 'user_updated', v: 1, userId: ids.member, fullName: 'Mary Q', timezone: 'Asia/Kolkata', emailAddressVisibility: 5 }]);
  const lost = r.value.events.find((e) => (field(e, 'person') as { delivery_email?: unknown } | undefined)?.delivery_email === null)!;
  t.same([...lost.userIds].sort(), [ids.other, ids.guest, ids.bot].sort(), 'members, guests and bots lose sight of the address');
  run(state, settings(ids.member, { fullName: 'Mary Q', timezone: 'Asia/Kolkata', emailAddressVisibility: 5 }), ctx);
  t.match(state.users.get(ids.member), { fullName: 'Mary Q', timezone: 'Asia/Kolkata', emailAddressVisibility: 5 });
  const again = decide(state, settings(ids.member, { fullName: 'Mary Q', timezone: 'Asia/Kolkata', emailAddressVisibility: 5 }), ctx);
  t.ok(again.ok && again.value.records.length === 0 && again.value.events.length === 0, 'unchanged: nothing');
});

t.test('add_bot: rules in Zulip order, records, events', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const add = (actorId: number, over: Partial<AddBot> = {}): AddBot => ({ type: 'add_bot', actorId, fullName: 'Helper Bot', shortName: 'helper', botType: 1, ...over });
  rejects(t, state, add(ids.guest), ctx, 'Not allowed for guest users');
  rejects(t, state, add(ids.member, { fullName: 'H' }), ctx, 'Name too short!');
  rejects(t, state, add(ids.member, { shortName: 'a b' }), ctx, 'Bad name or username');
  rejects(t, state, add(ids.member, { shortName: 'bot', fullName: 'Olivia Owner' }), ctx, 'Name is already in use!');
  run(state, { type: 'create_user', email: 'taken-bot@chat.example.com', fullName: 'Taken', role: Role.member, passwordHash: null, isBot: false, botType: null, botOwnerId: null, timezone: '' }, ctx);
  rejects(t, state, add(ids.member, { shortName: 'Taken' }), ctx, 'Username already in use');
  rejects(t, state, add(ids.member, { botType: 4 }), ctx, 'Invalid bot type');
  state.settings.groups.can_create_bots_group = state.systemGroups.get('role:administrators')!;
  rejects(t, state, add(ids.member), ctx, 'Insufficient permission');
  const r = decide(state, add(ids.admin), ctx);
  if (!r.ok) throw r.error;
  t.match(r.value.records[0], { type: 'user_created', email: 'helper-bot@chat.example.com', fullName: 'Helper Bot', isBot: true, botType: 1, botOwnerId: ids.admin, passwordHash: null });
  const botEvent = r.value.events.find((e) => e.payload.type === 'realm_bot')!;
  t.same([...botEvent.userIds].sort(), [ids.owner, ids.admin].sort(), 'owner of the bot and administrators');
  t.match(field(botEvent, 'bot'), { email: 'helper-bot@chat.example.com', user_id: r.value.reply.userId, api_key: r.value.reply.apiKey, owner_id: ids.admin, services: [] });
  const made = run(state, add(ids.admin), ctx);
  t.equal(state.usersByApiKey.get(made.apiKey), made.userId, 'the API key authenticates the bot');
});
