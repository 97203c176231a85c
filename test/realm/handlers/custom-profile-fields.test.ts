/**
 * Custom profile field handlers (https://zulip.com/api/get-custom-profile-fields): every rule and
 * error string of
 * create / update / delete / reorder and of users' values, each error with "state unchanged",
 * records surviving a snapshot round trip.
 */
import t from 'tap';
import { decide, fingerprint, run, smallRealm, rejects } from '../../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { fieldsToWire, profileDataToWire } from '../../../src/domain/custom-profile-fields.js';
import type { RealmState } from '../../../src/domain/realm-state.js';
import type { CommandContext } from '../../../src/realm/decision.js';
import type { Command } from '../../../src/realm/commands.js';
import type { CreateCustomProfileField, UpdateCustomProfileField } from '../../../src/realm/handlers/custom-profile-fields.js';


const create = (actorId: number, over: Partial<CreateCustomProfileField> = {}): CreateCustomProfileField => ({
  type: 'create_custom_profile_field', actorId, fieldType: 1, name: 'Phone', hint: '', fieldData: {},
  displayInProfileSummary: false, required: false, editableByUser: true, ...over,
});

const update = (actorId: number, fieldId: number, over: Partial<UpdateCustomProfileField> = {}): UpdateCustomProfileField => ({
  type: 'update_custom_profile_field', actorId, fieldId, name: 'Phone', hint: '', fieldData: {},
  displayInProfileSummary: false, required: false, editableByUser: true, ...over,
});

const choices = { a: { text: 'Vim', order: '1' }, b: { text: 'Emacs', order: '2' } };

t.test('create: records, event to all active users, wire form, order = id', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const r = decide(state, create(ids.admin, { fieldType: 3, name: 'Editor', fieldData: choices, displayInProfileSummary: true, required: true }), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.reply, { id: 1 });
  t.equal(r.value.records.length, 1);
  t.same(r.value.events.length, 1);
  const ev = r.value.events[0]!;
  t.same([...ev.userIds].sort(), Object.values(ids).sort(), 'every active user (bots included)');
  run(state, create(ids.admin, { fieldType: 3, name: 'Editor', fieldData: choices, displayInProfileSummary: true, required: true }), ctx);
  run(state, create(ids.owner, { name: 'Birthday', fieldType: 4, hint: 'yyyy-mm-dd', editableByUser: false }), ctx);
  t.same(fieldsToWire(state), [
    { id: 1, name: 'Editor', type: 3, hint: '', field_data: JSON.stringify(choices), order: 1, required: true, editable_by_user: true, display_in_profile_summary: true },
    { id: 2, name: 'Birthday', type: 4, hint: 'yyyy-mm-dd', field_data: '', order: 2, required: false, editable_by_user: false },
  ]);
  t.same(ev.payload, { type: 'custom_profile_fields', fields: [fieldsToWire(state)[0]] });
});

t.test('create: every validation error, in Zulip order, state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  rejects(t, state, create(ids.member), ctx, 'Insufficient permission');
  rejects(t, state, create(ids.guest), ctx, 'Insufficient permission');
  run(state, create(ids.admin, { name: 'A', displayInProfileSummary: true }), ctx);
  run(state, create(ids.admin, { name: 'B', displayInProfileSummary: true }), ctx);
  // The summary limit comes before every other check (as in Zulip's zerver/views/custom_profile_fields.py).
  rejects(t, state, create(ids.admin, { name: '', fieldType: 99, displayInProfileSummary: true }), ctx,
    'Only 2 custom profile fields can be displayed in the profile summary.');
  const cases: Array<[Partial<CreateCustomProfileField>, string]> = [
    [{ fieldType: 3, fieldData: {} }, 'Field must have at least one choice.'],
    [{ fieldType: 3, fieldData: { ' ': { text: 'x', order: '1' } } }, "'value' cannot be blank."],
    [{ fieldType: 3, fieldData: { a: { text: 'x' } } }, 'order key is missing from field_data'],
    [{ fieldType: 3, fieldData: { a: { order: '1' } } }, 'text key is missing from field_data'],
    [{ fieldType: 3, fieldData: { a: { text: 'x', order: ' ' } } }, 'field_data["order"] cannot be blank.'],
    [{ fieldType: 3, fieldData: { a: { text: '', order: '1' } } }, 'field_data["text"] cannot be blank.'],
    [{ fieldType: 3, fieldData: { a: 'x' } }, 'field_data is not a dict'],
    [{ fieldType: 3, fieldData: { a: { text: 'x', order: '1', extra: 'y' } } }, 'Unexpected arguments: extra'],
    [{ fieldType: 3, fieldData: { a: { text: 'x', order: '1' }, b: { text: 'x', order: '2' } } }, 'Field must not have duplicate choices.'],
    [{ fieldType: 7, fieldData: {} }, 'subtype key is missing from field_data'],
    [{ fieldType: 7, fieldData: { subtype: ' ' } }, 'field_data["subtype"] cannot be blank.'],
    [{ fieldType: 7, fieldData: { subtype: 'custom', url_pattern: 'https://x.com/user' } }, "URL pattern must contain '%(username)s'."],
    [{ fieldType: 7, fieldData: { subtype: 'custom', url_pattern: 'https://x.com/%(username)s/%(username)s' } }, "URL pattern must contain '%(username)s'."],
    [{ fieldType: 7, fieldData: { subtype: 'custom', url_pattern: 'x.com/%(username)s' } }, 'field_data["url_pattern"] is not a URL'],
    [{ fieldType: 7, fieldData: { subtype: 'gitlab' } }, 'Invalid external account type'],
    [{ fieldType: 7, fieldData: { subtype: 'custom' } }, 'Custom external account must define URL pattern'],
    [{ fieldType: 7, fieldData: { subtype: 'github', other: 'x' } }, 'Unexpected arguments: other'],
    [{ name: '' }, 'Label cannot be blank.'],
    [{ hint: 'h'.repeat(81) }, 'hint is too long (limit: 80 characters)'],
    [{ name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    [{ fieldType: 9 }, 'Invalid field type.'],
    [{ fieldType: 0, name: '' }, 'Label cannot be blank.'],
    [{ name: 'A' }, 'A field with that label already exists.'],
  ];
  for (const [over, msg] of cases) rejects(t, state, create(ids.admin, { name: 'New', ...over }), ctx, msg);
  // Summary type restriction, checked once the limit has room.
  const { state: s2, ctx: c2, ids: i2 } = smallRealm();
  rejects(t, s2, create(i2.admin, { fieldType: 2, displayInProfileSummary: true }), c2, 'Field type not supported for display in profile summary.');
  rejects(t, s2, create(i2.admin, { fieldType: 6, displayInProfileSummary: true }), c2, 'Field type not supported for display in profile summary.');
  t.ok(decide(s2, create(i2.admin, { name: 'x'.repeat(40), hint: 'h'.repeat(80) }), c2).ok, 'limits are inclusive');
});

t.test('create: default external accounts ignore name and hint; custom keeps its pattern', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, create(ids.admin, { fieldType: 7, name: '', hint: 'h'.repeat(100), fieldData: { subtype: 'github' } }), ctx);
  run(state, create(ids.admin, { fieldType: 7, name: 'ignored', fieldData: { subtype: 'twitter' } }), ctx);
  run(state, create(ids.admin, { fieldType: 7, name: 'Mastodon', fieldData: { subtype: 'custom', url_pattern: 'https://mastodon.social/@%(username)s' } }), ctx);
  t.match(fieldsToWire(state), [
    { name: 'GitHub username', hint: '', field_data: '{"subtype":"github"}' },
    { name: 'Twitter username', hint: '', field_data: '{"subtype":"twitter"}' },
    { name: 'Mastodon', field_data: '{"subtype":"custom","url_pattern":"https://mastodon.social/@%(username)s"}' },
  ]);
  rejects(t, state, create(ids.admin, { fieldType: 7, fieldData: { subtype: 'github' } }), ctx, 'A field with that label already exists.');
});

t.test('update: full replacement, errors, default external fields, select values pruned', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const sel = run(state, create(ids.admin, { fieldType: 3, name: 'Editor', hint: 'pick', fieldData: choices, required: true }), ctx).id;
  const gh = run(state, create(ids.admin, { fieldType: 7, fieldData: { subtype: 'github' } }), ctx).id;
  const other = run(state, create(ids.admin, { name: 'Other', displayInProfileSummary: true }), ctx).id;
  run(state, create(ids.admin, { name: 'Other2', displayInProfileSummary: true }), ctx);
  rejects(t, state, update(ids.member, sel), ctx, 'Insufficient permission');
  rejects(t, state, update(ids.admin, 99), ctx, 'Field id 99 not found.');
  rejects(t, state, update(ids.admin, sel, { name: 'Editor', fieldData: choices, displayInProfileSummary: true }), ctx,
    'Only 2 custom profile fields can be displayed in the profile summary.');
  t.ok(decide(state, update(ids.admin, other, { name: 'Other', displayInProfileSummary: true }), ctx).ok, 'limit excludes the field itself');
  rejects(t, state, update(ids.admin, sel, { name: 'Editor', fieldData: {} }), ctx, 'Field must have at least one choice.');
  rejects(t, state, update(ids.admin, sel, { name: 'Other', fieldData: choices }), ctx, 'A field with that label already exists.');
  rejects(t, state, update(ids.admin, sel, { name: '', fieldData: choices }), ctx, 'Label cannot be blank.');
  rejects(t, state, update(ids.admin, gh, { name: 'Code', fieldData: { subtype: 'github' } }), ctx, 'Default custom field cannot be updated.');
  rejects(t, state, update(ids.admin, gh, { name: 'GitHub username' }), ctx, 'Default custom field cannot be updated.');
  const flagsOnly = decide(state, update(ids.admin, gh, { name: 'GitHub username', fieldData: { subtype: 'github' }, required: true }), ctx);
  t.ok(flagsOnly.ok, 'default external: flags may change');

  // A user picks "b"; removing choice "b" deletes the value; omitted hint/required reset.
  run(state, { type: 'set_custom_profile_values', actorId: ids.member, data: [{ id: sel, value: 'b' }] }, ctx);
  t.same(profileDataToWire(state, ids.member), { [sel]: { value: 'b' } });
  const r = decide(state, update(ids.admin, sel, { name: 'Editor', fieldData: { a: choices.a } }), ctx);
  if (!r.ok) throw r.error;
  t.match(r.value.events[0]!.payload, { type: 'custom_profile_fields', fields: [{ id: sel, hint: '', required: false, field_data: '{"a":{"text":"Vim","order":"1"}}' }] });
  run(state, update(ids.admin, sel, { name: 'Editor', fieldData: { a: choices.a } }), ctx);
  t.same(profileDataToWire(state, ids.member), {}, 'value of a removed choice deleted');
  t.match(fieldsToWire(state)[0], { name: 'Editor', hint: '', required: false });
  // Non-data types store "" whatever field_data says.
  run(state, update(ids.admin, other, { name: 'Other', fieldData: { x: 'y' } }), ctx);
  t.equal(fieldsToWire(state).find((f) => f.id === other)!.field_data, '');
});

t.test('delete and reorder', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const a = run(state, create(ids.admin, { name: 'A' }), ctx).id;
  const b = run(state, create(ids.admin, { name: 'B' }), ctx).id;
  const c = run(state, create(ids.admin, { name: 'C' }), ctx).id;
  rejects(t, state, { type: 'reorder_custom_profile_fields', actorId: ids.member, order: [c, b, a] }, ctx, 'Insufficient permission');
  rejects(t, state, { type: 'reorder_custom_profile_fields', actorId: ids.admin, order: [c, b] }, ctx, 'Invalid order mapping.');
  run(state, { type: 'reorder_custom_profile_fields', actorId: ids.admin, order: [c, 99, b, a] }, ctx);
  t.same(fieldsToWire(state).map((f) => [f.id, f.order]), [[c, 0], [b, 2], [a, 3]], 'order = index; extra ids ignored');
  run(state, { type: 'set_custom_profile_values', actorId: ids.member, data: [{ id: b, value: 'x' }] }, ctx);
  rejects(t, state, { type: 'delete_custom_profile_field', actorId: ids.member, fieldId: b }, ctx, 'Insufficient permission');
  rejects(t, state, { type: 'delete_custom_profile_field', actorId: ids.admin, fieldId: 42 }, ctx, 'Field id 42 not found.');
  const r = decide(state, { type: 'delete_custom_profile_field', actorId: ids.admin, fieldId: b }, ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.events[0]!.payload, { type: 'custom_profile_fields', fields: fieldsToWire(state).filter((f) => f.id !== b) });
  run(state, { type: 'delete_custom_profile_field', actorId: ids.admin, fieldId: b }, ctx);
  t.same(profileDataToWire(state, ids.member), {}, 'values deleted with the field');
  const d = run(state, create(ids.admin, { name: 'D' }), ctx).id;
  t.equal(d, 4, 'ids are never reused');
});

t.test('user values: validation per type with the field name, events, no-ops', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const f = (name: string, fieldType: number, over: Partial<CreateCustomProfileField> = {}) =>
    run(state, create(ids.admin, { name, fieldType, ...over }), ctx).id;
  const short = f('Phone', 1);
  const long = f('Bio', 2);
  const sel = f('Editor', 3, { fieldData: choices });
  const date = f('Birthday', 4);
  const url = f('Website', 5);
  const users = f('Mentor', 6);
  const ext = f('GitHub', 7, { fieldData: { subtype: 'github' } });
  const pron = f('Pronouns', 8);
  const locked = f('Employee id', 1, { editableByUser: false });
  const set = (actorId: number, data: Array<{ id: number; value: unknown }>) => ({ type: 'set_custom_profile_values' as const, actorId, data });
  const cases: Array<[number, unknown, string]> = [
    [short, 'x'.repeat(51), 'Phone is too long (limit: 50 characters)'],
    [short, [1], 'Phone is not a string'],
    [long, 'x'.repeat(501), 'Bio is too long (limit: 500 characters)'],
    [date, '1909-3-5', 'Birthday is not a date'],
    [date, '2023-02-30', 'Birthday is not a date'],
    [date, [1], 'Birthday is not a string'],
    [url, 'not a url', 'Website is not a URL'],
    [url, 'example.com', 'Website is not a URL'],
    [sel, 'z', "'z' is not a valid choice for 'Editor'."],
    [users, '[1]', 'User IDs is not a list'],
    [users, ['a'], 'User IDs[0] is not an integer'],
    [users, [999], 'Invalid user ID: 999'],
    [users, [ids.bot], `User with ID ${ids.bot} is a bot`],
    [ext, 'x'.repeat(51), 'GitHub username is too long (limit: 50 characters)'],
    [pron, 'x'.repeat(51), 'Pronouns is too long (limit: 50 characters)'],
    [77, 'x', 'Field id 77 not found.'],
    [locked, 'x', 'You are not allowed to change this field. Contact an administrator to update it.'],
  ];
  for (const [id, value, msg] of cases) rejects(t, state, set(ids.member, [{ id: short, value: 'ok' }, { id, value }]), ctx, msg);
  rejects(t, state, set(ids.bot, [{ id: short, value: 'x' }]), ctx, 'This endpoint does not accept bot requests.');
  t.ok(decide(state, set(ids.admin, [{ id: locked, value: 'E1' }]), ctx).ok, 'administrators may set locked fields');

  const r = decide(state, set(ids.member, [
    { id: short, value: '**555**' }, { id: long, value: 'Hi *there*' }, { id: sel, value: 'a' }, { id: date, value: '1990-01-31' },
    { id: url, value: 'https://example.com/x' }, { id: users, value: [ids.owner, ids.other] }, { id: ext, value: 'hamlet' }, { id: pron, value: 'he/him' },
  ]), ctx);
  if (!r.ok) throw r.error;
  t.equal(r.value.events.length, 8, 'one event per changed field');
  t.same(r.value.events[0], {
    userIds: r.value.events[0]!.userIds,
    payload: { type: 'realm_user', op: 'update', person: { user_id: ids.member, custom_profile_field: { id: short, value: '**555**', rendered_value: '<p><strong>555</strong></p>' } } },
  });
  t.same(r.value.events[5]!.payload, { type: 'realm_user', op: 'update', person: { user_id: ids.member, custom_profile_field: { id: users, value: `[${ids.owner},${ids.other}]` } } });
  run(state, set(ids.member, [
    { id: short, value: '**555**' }, { id: long, value: 'Hi *there*' }, { id: sel, value: 'a' }, { id: date, value: '1990-01-31' },
    { id: url, value: 'https://example.com/x' }, { id: users, value: [ids.owner, ids.other] }, { id: ext, value: 'hamlet' }, { id: pron, value: 'he/him' },
  ]), ctx);
  t.same(profileDataToWire(state, ids.member), {
    [short]: { value: '**555**', rendered_value: '<p><strong>555</strong></p>' },
    [long]: { value: 'Hi *there*', rendered_value: '<p>Hi <em>there</em></p>' },
    [sel]: { value: 'a' },
    [date]: { value: '1990-01-31' },
    [url]: { value: 'https://example.com/x' },
    [users]: { value: `[${ids.owner},${ids.other}]` },
    [ext]: { value: 'hamlet' },
    [pron]: { value: 'he/him' },
  });
  const same = decide(state, set(ids.member, [{ id: short, value: '**555**' }, { id: users, value: [ids.owner, ids.other] }]), ctx);
  t.ok(same.ok && same.value.records.length === 0 && same.value.events.length === 0, 'unchanged values: no record, no event');

  // Remove.
  const rm = (actorId: number, fieldIds: number[]) => ({ type: 'remove_custom_profile_values' as const, actorId, fieldIds });
  rejects(t, state, rm(ids.member, [short, 77]), ctx, 'Field id 77 not found.');
  rejects(t, state, rm(ids.member, [locked]), ctx, 'You are not allowed to change this field. Contact an administrator to update it.');
  rejects(t, state, rm(ids.bot, [short]), ctx, 'This endpoint does not accept bot requests.');
  const removed = decide(state, rm(ids.member, [short, long, short]), ctx);
  if (!removed.ok) throw removed.error;
  t.same(removed.value.events.map((e) => e.payload), [
    { type: 'realm_user', op: 'update', person: { user_id: ids.member, custom_profile_field: { id: short, value: null } } },
    { type: 'realm_user', op: 'update', person: { user_id: ids.member, custom_profile_field: { id: long, value: null } } },
  ], 'one event per removed value; repeated id removed once');
  run(state, rm(ids.member, [short, long]), ctx);
  const none = decide(state, rm(ids.member, [short]), ctx);
  t.ok(none.ok && none.value.records.length === 0, 'removing a missing value: silent no-op');
  t.notOk(String(short) in profileDataToWire(state, ids.member));

  // Deactivated users are rejected by the USER type.
  const u = state.users.get(ids.other)!;
  u.isActive = false;
  rejects(t, state, set(ids.member, [{ id: users, value: [ids.other] }]), ctx, `User with ID ${ids.other} is deactivated`);
  u.isActive = true;

  // Snapshot round trip keeps fields and values.
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, structuredClone(core), columns);
  restored.host = state.host;
  t.same(fieldsToWire(restored), fieldsToWire(state));
  t.same(profileDataToWire(restored, ids.member), profileDataToWire(state, ids.member));
  const old = structuredClone(core) as unknown as Record<string, unknown>;
  delete old.profileFields;
  t.same(fieldsToWire(fromSnapshot(state.id, old, columns)), [], 'old snapshots load with no fields');
});
