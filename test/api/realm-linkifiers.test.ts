/**
 * Linkifiers (https://zulip.com/api/get-linkifiers, https://zulip.com/api/add-linkifier): handler rules with
 * "state unchanged after error", every error string with its `errors` dict, ordering and reorder,
 * snapshots, events via verifyAction, and `/register` with and without `linkifier_url_template`.
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, run, smallRealm } from '../support/realm-fixture.js';
import { evolve } from '../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { linkifiersWire } from '../../src/domain/linkifiers.js';
import type { Command } from '../../src/realm/commands.js';

const TRAC = 'https://trac.example.com/ticket/{id}';
const CAPS = { client_capabilities: { linkifier_url_template: true } };

/** Zulip's ValidationFailureError body. */
const invalid = (errors: Record<string, string[]>) => ({
  result: 'error', msg: Object.values(errors)[0]![0], code: 'BAD_REQUEST', errors,
});

// ------------------------------------------------------------------------------------------
// Handler rules

t.test('handlers: add appends, update keeps position, remove, reorder; one event to all active users', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const add = (pattern: string, urlTemplate = TRAC) => ({ type: 'add_linkifier' as const, actorId: ids.admin, pattern, urlTemplate });
  const r = decide(state, add('#(?P<id>[0-9]+)'), ctx);
  if (!r.ok) throw r.error;
  t.same(r.value.reply, { id: 1 });
  t.same(r.value.records, [{ type: 'linkifiers_changed', v: 1, linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: TRAC }], nextId: 2 }]);
  t.same(r.value.events, [{
    userIds: [...state.users.values()].filter((u) => u.isActive).map((u) => u.id),
    payload: { type: 'realm_linkifiers', realm_linkifiers: [{ pattern: '#(?P<id>[0-9]+)', url_template: TRAC, id: 1 }] },
  }]);
  for (const rec of r.value.records) evolve(state, rec);
  t.same(run(state, add('T(?P<id>[0-9]+)'), ctx), { id: 2 });
  t.same(run(state, add('U(?P<id>[0-9]+)'), ctx), { id: 3 });
  run(state, { type: 'update_linkifier', actorId: ids.owner, id: 1, pattern: 'S(?P<id>[0-9]+)', urlTemplate: 'https://s/{id}' }, ctx);
  t.same(linkifiersWire(state).map((l) => [l.id, l.pattern]), [[1, 'S(?P<id>[0-9]+)'], [2, 'T(?P<id>[0-9]+)'], [3, 'U(?P<id>[0-9]+)']]);
  run(state, { type: 'reorder_linkifiers', actorId: ids.admin, orderedIds: [3, 1, 2] }, ctx);
  t.same(linkifiersWire(state).map((l) => l.id), [3, 1, 2]);
  run(state, { type: 'remove_linkifier', actorId: ids.admin, id: 3 }, ctx);
  t.same(run(state, add('V(?P<id>[0-9]+)'), ctx), { id: 4 }, 'ids are never reused; new ones go last');
  t.same(linkifiersWire(state).map((l) => l.id), [1, 2, 4]);

  // Snapshot round trip, and a snapshot written before linkifiers loads with none.
  const { core, columns } = toSnapshot(state);
  t.same(linkifiersWire(fromSnapshot(1, structuredClone(core), columns)), linkifiersWire(state));
  const { linkifiers: _dropped, ...oldCore } = core;
  t.same(linkifiersWire(fromSnapshot(1, structuredClone(oldCore), columns)), []);
});

t.test('handlers: every error leaves the state unchanged', async (t) => {
  const { state, ctx, ids } = smallRealm();
  run(state, { type: 'add_linkifier', actorId: ids.admin, pattern: '#(?P<id>[0-9]+)', urlTemplate: TRAC }, ctx);
  run(state, { type: 'add_linkifier', actorId: ids.admin, pattern: 'T(?P<id>[0-9]+)', urlTemplate: TRAC }, ctx);
  const before = fingerprint(state);
  const cases: Array<[Command, string]> = [
    [{ type: 'add_linkifier', actorId: ids.member, pattern: 'x', urlTemplate: 'https://x' }, 'Must be an organization administrator'],
    [{ type: 'add_linkifier', actorId: ids.guest, pattern: 'x', urlTemplate: 'https://x' }, 'Must be an organization administrator'],
    [{ type: 'add_linkifier', actorId: ids.admin, pattern: '(foo', urlTemplate: 'https://x' }, 'Bad regular expression: missing ): (foo'],
    [{ type: 'add_linkifier', actorId: ids.admin, pattern: '#(?P<id>[0-9]+)', urlTemplate: TRAC }, 'Realm filter with this Realm and Pattern already exists.'],
    [{ type: 'update_linkifier', actorId: ids.admin, id: 99, pattern: 'x', urlTemplate: 'https://x' }, 'Linkifier not found.'],
    [{ type: 'update_linkifier', actorId: ids.admin, id: 1, pattern: 'T(?P<id>[0-9]+)', urlTemplate: TRAC }, 'Realm filter with this Realm and Pattern already exists.'],
    [{ type: 'update_linkifier', actorId: ids.member, id: 1, pattern: 'x', urlTemplate: 'https://x' }, 'Must be an organization administrator'],
    [{ type: 'remove_linkifier', actorId: ids.admin, id: 99 }, 'Linkifier not found.'],
    [{ type: 'remove_linkifier', actorId: ids.other, id: 1 }, 'Must be an organization administrator'],
    [{ type: 'reorder_linkifiers', actorId: ids.admin, orderedIds: [1, 1, 2] }, 'The ordered list must not contain duplicated linkifiers'],
    [{ type: 'reorder_linkifiers', actorId: ids.admin, orderedIds: [1] }, 'The ordered list must enumerate all existing linkifiers exactly once'],
    [{ type: 'reorder_linkifiers', actorId: ids.admin, orderedIds: [1, 3] }, 'The ordered list must enumerate all existing linkifiers exactly once'],
    [{ type: 'reorder_linkifiers', actorId: ids.member, orderedIds: [2, 1] }, 'Must be an organization administrator'],
  ];
  for (const [cmd, msg] of cases) {
    const r = decide(state, cmd, ctx);
    t.equal(r.ok ? 'ok' : r.error.message, msg, `${cmd.type}: ${msg}`);
  }
  t.equal(fingerprint(state), before, 'state unchanged');
  // Updating a linkifier to its own pattern is not a duplicate.
  run(state, { type: 'update_linkifier', actorId: ids.admin, id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://new/{id}' }, ctx);
  // Reorder of an empty list: success, no record, no event.
  const empty = smallRealm();
  const r = decide(empty.state, { type: 'reorder_linkifiers', actorId: empty.ids.admin, orderedIds: [] }, empty.ctx);
  t.same(r.ok && r.value, { records: [], events: [], reply: {} });
});

// ------------------------------------------------------------------------------------------
// HTTP

t.test('POST /realm/filters: every validation error with its errors dict; state unchanged', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const list = async () => (await hamlet.call('GET', '/realm/linkifiers')).body.linkifiers;
  const post = (pattern: unknown, url_template: unknown) => iago.call('POST', '/realm/filters', { pattern, url_template });

  t.same((await hamlet.call('POST', '/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: TRAC })).body,
    { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.same((await hamlet.call('POST', '/realm/filters', {})).body.msg, 'Must be an organization administrator', 'admin check first');
  t.match((await iago.call('POST', '/realm/filters', { url_template: TRAC })).body, { msg: "Missing 'pattern' argument", code: 'REQUEST_VARIABLE_MISSING' });
  t.match((await iago.call('POST', '/realm/filters', { pattern: 'x' })).body, { msg: "Missing 'url_template' argument" });

  const cases: Array<[string, string, Record<string, string[]>]> = [
    // Django's full_clean runs the model's clean() (the group checks) even after a field error.
    ['', TRAC, { pattern: ['This field cannot be blank.'], __all__: ["Group 'id' in URL template is not present in linkifier pattern."] }],
    ['   ', '  ', { pattern: ['This field cannot be blank.'], url_template: ['This field cannot be blank.'] }],
    ['#(?P<id>[0-9]+)', '', { url_template: ['This field cannot be blank.'], __all__: ["Group 'id' in linkifier pattern is not present in URL template."] }],
    ['(foo', 'https://x.com', { pattern: ['Bad regular expression: missing ): (foo'] }],
    ['a**', 'https://x.com', { pattern: ['Bad regular expression: bad repetition operator: **'] }],
    ['(?P<a>x)(?P=a)', 'https://x.com/{a}', { pattern: ['Bad regular expression: invalid perl operator: (?P'] }],
    ['(?>ab)', 'https://x.com', { pattern: ['Bad regular expression: invalid perl operator: (?>'] }],
    ['#(?P<id>[0-9]+)', 'https://x.com/{id', { url_template: ['Invalid URL template.'] }],
    ['(foo', 'https://x.com/{id', { pattern: ['Bad regular expression: missing ): (foo'], url_template: ['Invalid URL template.'] }],
    ['#(?P<id>[0-9]+)', 'https://x.com/{id}/{hello}/{world}', { __all__: ["Group 'hello' in URL template is not present in linkifier pattern."] }],
    ['#(?P<id>[0-9]+)(?P<zz>x)', 'https://x.com/', { __all__: ["Group 'id' in linkifier pattern is not present in URL template."] }],
    ['#(?P<id>[0-9]+)(?P<b>x)', 'https://x.com/{c}', { __all__: ["Group 'c' in URL template is not present in linkifier pattern."] }],
  ];
  for (const [pattern, url, errors] of cases) {
    const reply = await post(pattern, url);
    t.equal(reply.status, 400);
    t.same(reply.body, invalid(errors), `${pattern} / ${url}`);
  }
  t.same(await list(), [], 'nothing was created');

  const created = await post('  #(?P<id>[0-9]+)  ', ` ${TRAC} `);
  t.same(created.body, { result: 'success', msg: '', id: created.body.id });
  t.same(await list(), [{ pattern: '#(?P<id>[0-9]+)', url_template: TRAC, id: created.body.id }], 'stripped');
  t.same((await post('#(?P<id>[0-9]+)', 'https://other/{id}')).body,
    invalid({ __all__: ['Realm filter with this Realm and Pattern already exists.'] }));
  t.same((await post('(?P<id>[0-9]+)(?P<org>[a-z]+)', 'https://x.com/{id}{hello}')).body,
    invalid({ __all__: ["Group 'hello' in URL template is not present in linkifier pattern."] }));
  t.equal((await list()).length, 1, 'state unchanged after errors');
});

t.test('GET order, PATCH, DELETE, reorder over HTTP', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const add = async (p: string) => (await iago.call('POST', '/realm/filters', { pattern: p, url_template: TRAC })).body.id as number;
  const a = await add('A(?P<id>[0-9]+)');
  const b = await add('B(?P<id>[0-9]+)');
  const c = await add('C(?P<id>[0-9]+)');
  const ids = async () => ((await polonius.call('GET', '/realm/linkifiers')).body.linkifiers as Array<{ id: number }>).map((l) => l.id);
  t.same(await ids(), [a, b, c], 'guests can read; creation order');

  t.same((await iago.call('PATCH', `/realm/filters/${b}`, { pattern: 'BB(?P<num>[0-9]+)', url_template: 'https://b/{num}' })).body, { result: 'success', msg: '' });
  t.same((await iago.call('GET', '/realm/linkifiers')).body.linkifiers[1], { pattern: 'BB(?P<num>[0-9]+)', url_template: 'https://b/{num}', id: b });
  t.same((await iago.call('PATCH', '/realm/filters/999', { pattern: 'x', url_template: 'https://x' })).body, { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' });
  t.same((await iago.call('PATCH', `/realm/filters/${b}`, { pattern: 'x(?P<id>1)', url_template: 'https://x' })).body,
    invalid({ __all__: ["Group 'id' in linkifier pattern is not present in URL template."] }));
  t.match((await iago.call('PATCH', `/realm/filters/${b}`, { pattern: 'x' })).body, { msg: "Missing 'url_template' argument" });
  t.equal((await polonius.call('PATCH', `/realm/filters/${b}`, { pattern: 'x', url_template: 'https://x' })).body.msg, 'Must be an organization administrator');

  const reorder = (caller: typeof iago, list: unknown) => caller.call('PATCH', '/realm/linkifiers', { ordered_linkifier_ids: list });
  t.same((await reorder(iago, [a, a, b, c])).body, { result: 'error', msg: 'The ordered list must not contain duplicated linkifiers', code: 'BAD_REQUEST' });
  t.same((await reorder(iago, [a, b])).body, { result: 'error', msg: 'The ordered list must enumerate all existing linkifiers exactly once', code: 'BAD_REQUEST' });
  t.same((await reorder(iago, [a, b, c, 999])).body.msg, 'The ordered list must enumerate all existing linkifiers exactly once');
  t.equal((await reorder(polonius, [c, b, a])).body.msg, 'Must be an organization administrator');
  t.same(await ids(), [a, b, c], 'unchanged after errors');
  t.same((await reorder(iago, [c, a, b])).body, { result: 'success', msg: '' });
  t.same(await ids(), [c, a, b]);

  t.same((await iago.call('DELETE', '/realm/filters/999')).body, { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' });
  t.equal((await polonius.call('DELETE', `/realm/filters/${a}`)).body.msg, 'Must be an organization administrator');
  t.same((await iago.call('DELETE', `/realm/filters/${a}`)).body, { result: 'success', msg: '' });
  t.same(await ids(), [c, b]);
  t.same((await iago.call('POST', '/realm/filters', { pattern: 'D(?P<id>[0-9]+)', url_template: TRAC })).body.id, c + 1);
  t.same(await ids(), [c, b, c + 1], 'new linkifiers append at the end');
});

t.test('events via verifyAction; register with and without linkifier_url_template', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const opts = { registerParams: CAPS, eventTypes: ['realm_linkifiers'] };

  const added = await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('POST', '/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: TRAC }),
  });
  const id = added.actionResult.body.id as number;
  t.same(added.events[0], { id: added.events[0]!.id, type: 'realm_linkifiers', realm_linkifiers: [{ pattern: '#(?P<id>[0-9]+)', url_template: TRAC, id }] });
  t.same(added.after.realm_linkifiers, [{ pattern: '#(?P<id>[0-9]+)', url_template: TRAC, id }]);

  const second = await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('POST', '/realm/filters', { pattern: 'T(?P<id>[0-9]+)', url_template: TRAC }),
  });
  const id2 = second.actionResult.body.id as number;
  await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('PATCH', `/realm/filters/${id}`, { pattern: 'S(?P<id>[0-9]+)', url_template: TRAC }),
  });
  const reordered = await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('PATCH', '/realm/linkifiers', { ordered_linkifier_ids: [id2, id] }),
  });
  t.same(reordered.after.realm_linkifiers.map((l: { id: number }) => l.id), [id2, id]);
  await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 0, stateChangeExpected: false,
    action: () => iago.call('POST', '/realm/filters', { pattern: '(foo', url_template: TRAC }),
  });
  await verifyAction(t, s, hamlet, {
    ...opts, numEvents: 1, stateChangeExpected: true,
    action: () => iago.call('DELETE', `/realm/filters/${id}`),
  });

  // Without the capability: `realm_linkifiers` is [] and no event is delivered.
  const legacy = await verifyAction(t, s, hamlet, {
    eventTypes: ['realm_linkifiers', 'realm_filters'], numEvents: 0, stateChangeExpected: false,
    action: () => iago.call('POST', '/realm/filters', { pattern: 'U(?P<id>[0-9]+)', url_template: TRAC }),
  });
  t.same(legacy.after.realm_linkifiers, []);
  t.same(legacy.after.realm_filters, []);
  const reg = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm_linkifiers', 'realm_filters'], ...CAPS })).body;
  t.same(reg.realm_linkifiers.map((l: { pattern: string }) => l.pattern), ['T(?P<id>[0-9]+)', 'U(?P<id>[0-9]+)']);
  t.same(reg.realm_filters, [], 'legacy key always empty');
});
