/**
 * Navigation views (https://zulip.com/api/add-navigation-view,
 * https://zulip.com/api/rest-error-handling; Zulip FL 390): `GET/POST /navigation_views`,
 * `PATCH/DELETE /navigation_views/{fragment}`. Every rule and error string with "state unchanged
 * after error", `navigation_view` events via verifyAction, register state, per-user isolation;
 * plus the handlers on a small realm (records, events to the actor only, fingerprint unchanged
 * after errors) and the snapshot round trip (old snapshots without the field load).
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { decide, fingerprint, run, smallRealm } from '../support/realm-fixture.js';
import { evolve } from '../../src/domain/evolve.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { navigationViewsWire } from '../../src/domain/navigation-views.js';
import type { Command } from '../../src/realm/commands.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const views = async (c: Caller) => (await c.call('GET', '/navigation_views')).body.navigation_views as unknown[];
const at = (fragment: string) => `/navigation_views/${encodeURIComponent(fragment)}`;

t.test('navigation views over HTTP', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const add = (params: Record<string, unknown>, who = hamlet) => who.call('POST', '/navigation_views', params);

  t.same((await hamlet.call('GET', '/navigation_views')).body, { result: 'success', msg: '', navigation_views: [] }, 'none at first');
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['navigation_views'] })).body.navigation_views, [], 'register: none');

  // Configure a built-in view (no name; fragment stripped).
  const builtIn = await verifyAction(t, s, hamlet, { action: () => add({ fragment: '  inbox ', is_pinned: true }), numEvents: 1, stateChangeExpected: true });
  t.same(builtIn.actionResult.body, { result: 'success', msg: '' });
  t.same(builtIn.events[0], { id: builtIn.events[0]!.id, type: 'navigation_view', op: 'add', navigation_view: { fragment: 'inbox', is_pinned: true, name: null } });

  // A custom view (name stripped, fragment with slashes).
  const custom = await verifyAction(t, s, hamlet, {
    action: () => add({ fragment: 'narrow/is/alerted', is_pinned: false, name: ' Alert Words ' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(custom.events[0], { id: custom.events[0]!.id, type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/alerted', is_pinned: false, name: 'Alert Words' } });
  const expected = [
    { fragment: 'inbox', is_pinned: true, name: null },
    { fragment: 'narrow/is/alerted', is_pinned: false, name: 'Alert Words' },
  ];
  t.same(await views(hamlet), expected, 'GET lists them in creation order');
  t.same(custom.after.navigation_views, expected, 'register lists them');

  // POST errors: exact strings, nothing changes, no events.
  const postErrors: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ is_pinned: true }, { result: 'error', msg: "Missing 'fragment' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'fragment' }],
    [{ fragment: '', is_pinned: true }, bad('fragment cannot be blank')],
    [{ fragment: '   ', is_pinned: true }, bad('fragment cannot be blank')],
    [{ fragment: 'recent' }, { result: 'error', msg: "Missing 'is_pinned' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'is_pinned' }],
    [{ fragment: 'narrow/view', is_pinned: true, name: '  ' }, bad('name cannot be blank')],
    [{ fragment: 'recent', is_pinned: true, name: 'foo' }, bad('Built-in views cannot have a custom name.')],
    [{ fragment: 'narrow/is/starred', is_pinned: true, name: 'Stars' }, bad('Built-in views cannot have a custom name.')],
    [{ fragment: 'narrow/view', is_pinned: true }, bad('Custom views must have a valid name.')],
    [{ fragment: 'inbox', is_pinned: false }, bad('Navigation view already exists.')],
    [{ fragment: 'narrow/is/alerted', is_pinned: true, name: 'Other' }, bad('Navigation view already exists.')],
    [{ fragment: 'narrow/is/attachment', is_pinned: true, name: 'Alert Words' }, bad('Navigation view already exists.')],
  ];
  for (const [params, body] of postErrors) {
    const r = await verifyAction(t, s, hamlet, { action: () => add(params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, String(body.msg));
    t.same(r.actionResult.body, body);
  }
  t.equal((await add({ fragment: 'recent', is_pinned: 'yes' })).body.result, 'error', 'is_pinned must be a JSON bool');
  t.same(await views(hamlet), expected, 'state unchanged after POST errors');

  // PATCH: only the supplied keys, in the event's data.
  const pin = await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', at('inbox'), { is_pinned: false }), numEvents: 1, stateChangeExpected: true });
  t.same(pin.actionResult.body, { result: 'success', msg: '' });
  t.same(pin.events[0], { id: pin.events[0]!.id, type: 'navigation_view', op: 'update', fragment: 'inbox', data: { is_pinned: false } });
  const rename = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', at('narrow/is/alerted'), { name: ' Watched Phrases ', is_pinned: true }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(rename.events[0], { id: rename.events[0]!.id, type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { name: 'Watched Phrases', is_pinned: true } });
  const afterPatch = [
    { fragment: 'inbox', is_pinned: false, name: null },
    { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Watched Phrases' },
  ];
  t.same(await views(hamlet), afterPatch);

  t.equal((await add({ fragment: 'narrow/is/attachment', is_pinned: true, name: 'Attachments' })).status, 200);
  afterPatch.push({ fragment: 'narrow/is/attachment', is_pinned: true, name: 'Attachments' });
  const patchErrors: Array<[string, Record<string, unknown>, number, Record<string, unknown>]> = [
    ['inbox', { is_pinned: true, name: 'Inbox View' }, 400, bad('Built-in views cannot have a custom name.')],
    ['narrow/is/attachment', { name: 'Watched Phrases' }, 400, bad('Navigation view already exists.')],
    ['narrow/is/attachment', { name: 'Attachments' }, 400, bad('Navigation view already exists.')],
    ['narrow/is/attachment', { name: ' ' }, 400, bad('name cannot be blank')],
    ['nonexistent', { is_pinned: false, name: 'New view' }, 404, bad('Navigation view does not exist.')],
    [' ', { is_pinned: false }, 400, bad('fragment cannot be blank')],
  ];
  for (const [fragment, params, status, body] of patchErrors) {
    const r = await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', at(fragment), params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, status, String(body.msg));
    t.same(r.actionResult.body, body);
  }
  t.same(await views(hamlet), afterPatch, 'state unchanged after PATCH errors');

  // DELETE.
  const del = await verifyAction(t, s, hamlet, { action: () => hamlet.call('DELETE', at('narrow/is/alerted')), numEvents: 1, stateChangeExpected: true });
  t.same(del.actionResult.body, { result: 'success', msg: '' });
  t.same(del.events[0], { id: del.events[0]!.id, type: 'navigation_view', op: 'remove', fragment: 'narrow/is/alerted' });
  afterPatch.splice(1, 1);
  t.same(await views(hamlet), afterPatch);
  for (const fragment of ['narrow/is/alerted', 'nonexistent']) {
    const r = await verifyAction(t, s, hamlet, { action: () => hamlet.call('DELETE', at(fragment)), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 404);
    t.same(r.actionResult.body, bad('Navigation view does not exist.'));
  }
  t.same(await views(hamlet), afterPatch, 'state unchanged after DELETE errors');

  // A removed fragment and name can be used again.
  t.equal((await add({ fragment: 'narrow/is/alerted', is_pinned: false, name: 'Watched Phrases' })).status, 200);
  afterPatch.push({ fragment: 'narrow/is/alerted', is_pinned: false, name: 'Watched Phrases' });

  // Raw slashes, as Zulip's API examples send them (its `<path:fragment>` route).
  const raw = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/navigation_views/narrow/is/alerted', { name: 'Alert Word' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(raw.actionResult.body, { result: 'success', msg: '' });
  t.same(raw.events[0], { id: raw.events[0]!.id, type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { name: 'Alert Word' } });
  afterPatch[afterPatch.length - 1]!.name = 'Alert Word';
  t.same(await views(hamlet), afterPatch);
  t.same((await hamlet.call('DELETE', '/navigation_views/narrow/is/nothing')).body, bad('Navigation view does not exist.'), 'raw unknown fragment');
  t.equal((await hamlet.call('PATCH', '/navigation_views/', { is_pinned: true })).status, 404, 'no fragment at all is no route');
  t.same(await views(hamlet), afterPatch, 'unchanged');

  // Per user: othello neither sees nor changes hamlet's views, gets no events, has his own.
  t.same(await views(othello), [], "othello does not see hamlet's views");
  for (const action of [
    () => othello.call('PATCH', at('inbox'), { is_pinned: true }),
    () => othello.call('DELETE', at('inbox')),
  ]) {
    const r = await verifyAction(t, s, hamlet, { action, numEvents: 0, stateChangeExpected: false });
    t.same(r.actionResult.body, bad('Navigation view does not exist.'));
  }
  const own = await verifyAction(t, s, hamlet, { action: () => add({ fragment: 'inbox', is_pinned: true }, othello), numEvents: 0, stateChangeExpected: false });
  t.same(own.actionResult.body, { result: 'success', msg: '' }, 'same fragment for another user is fine; no event to hamlet');
  t.same(await views(othello), [{ fragment: 'inbox', is_pinned: true, name: null }]);
  t.same(await views(hamlet), afterPatch, "hamlet's views unchanged by othello");
});

t.test('navigation view handlers', async (t) => {
  const { state, ctx, ids } = smallRealm();
  const cmd = (c: Record<string, unknown>) => c as unknown as Command;

  const added = decide(state, cmd({ type: 'add_navigation_view', actorId: ids.member, fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' }), ctx);
  if (!added.ok) throw added.error;
  t.same(added.value.records, [{ type: 'navigation_view_added', v: 1, userId: ids.member, fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' }]);
  t.same(added.value.events, [{ userIds: [ids.member], payload: { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' } } }], 'to the actor only');
  for (const r of added.value.records) evolve(state, r);
  run(state, cmd({ type: 'add_navigation_view', actorId: ids.member, fragment: 'recent', isPinned: false }), ctx);

  const before = fingerprint(state);
  const errors: Array<[Record<string, unknown>, string, number]> = [
    [{ type: 'add_navigation_view', actorId: ids.member, fragment: 'recent', isPinned: true }, 'Navigation view already exists.', 400],
    [{ type: 'add_navigation_view', actorId: ids.member, fragment: 'feed', isPinned: true, name: 'x' }, 'Built-in views cannot have a custom name.', 400],
    [{ type: 'add_navigation_view', actorId: ids.member, fragment: 'narrow/x', isPinned: true }, 'Custom views must have a valid name.', 400],
    [{ type: 'add_navigation_view', actorId: ids.member, fragment: 'narrow/x', isPinned: true, name: 'Alerts' }, 'Navigation view already exists.', 400],
    [{ type: 'add_navigation_view', actorId: 9999, fragment: 'recent', isPinned: true }, 'No such user', 400],
    [{ type: 'update_navigation_view', actorId: ids.member, fragment: 'recent', name: 'x' }, 'Built-in views cannot have a custom name.', 400],
    [{ type: 'update_navigation_view', actorId: ids.member, fragment: 'narrow/is/alerted', name: 'Alerts' }, 'Navigation view already exists.', 400],
    [{ type: 'update_navigation_view', actorId: ids.other, fragment: 'recent', isPinned: true }, 'Navigation view does not exist.', 404],
    [{ type: 'remove_navigation_view', actorId: ids.other, fragment: 'recent' }, 'Navigation view does not exist.', 404],
  ];
  for (const [c, msg, status] of errors) {
    const r = decide(state, cmd(c), ctx);
    t.equal(r.ok, false, msg);
    if (!r.ok) {
      t.equal(r.error.message, msg);
      t.equal(r.error.status, status);
      t.equal(r.error.code, 'BAD_REQUEST');
    }
  }
  t.equal(fingerprint(state), before, 'state unchanged after errors');

  const updated = decide(state, cmd({ type: 'update_navigation_view', actorId: ids.member, fragment: 'recent' }), ctx);
  if (!updated.ok) throw updated.error;
  t.same(updated.value.events[0]!.payload, { type: 'navigation_view', op: 'update', fragment: 'recent', data: {} }, 'nothing passed: empty data, as Zulip');
  run(state, cmd({ type: 'update_navigation_view', actorId: ids.member, fragment: 'recent', isPinned: true }), ctx);
  t.same(navigationViewsWire(state, ids.member), [
    { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' },
    { fragment: 'recent', is_pinned: true, name: null },
  ]);
  t.same(navigationViewsWire(state, ids.other), []);

  // Snapshot round trip, and a snapshot written before navigation views loads with none.
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  t.same(navigationViewsWire(copy, ids.member), navigationViewsWire(state, ids.member), 'snapshot round trip');
  const old: Partial<typeof core> = structuredClone(core);
  delete old.navigationViews;
  t.same(navigationViewsWire(fromSnapshot(state.id, old, columns), ids.member), [], 'old snapshot: no views');

  run(state, cmd({ type: 'remove_navigation_view', actorId: ids.member, fragment: 'recent' }), ctx);
  run(state, cmd({ type: 'remove_navigation_view', actorId: ids.member, fragment: 'narrow/is/alerted' }), ctx);
  t.same(navigationViewsWire(state, ids.member), []);
  t.equal(state.navigationViews?.has(ids.member), false, 'a user without views has no entry');
});
