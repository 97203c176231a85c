/**
 * Code playgrounds over HTTP (https://zulip.com/api/add-code-playground,
 * https://zulip.com/api/remove-code-playground): `realm_playgrounds` events via verifyAction,
 * the register's list, Zulip's validation messages, permission errors and "state unchanged".
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const err = (msg: string, code = 'BAD_REQUEST') => ({ result: 'error', msg, code });

t.test('add, list and remove code playgrounds', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  const python = { name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com?code={code}' };

  const added = await verifyAction(t, s, hamlet, { action: () => iago.call('POST', '/realm/playgrounds', python), numEvents: 1, stateChangeExpected: true });
  t.same(added.actionResult.body, { result: 'success', msg: '', id: 1 });
  t.same(added.events[0], { id: added.events[0]!.id, type: 'realm_playgrounds', realm_playgrounds: [{ id: 1, ...python }] });
  const rust = { name: 'Rust playground', pygments_language: 'Rust', url_template: 'https://play.example.com/?code={code}' };
  t.equal((await iago.call('POST', '/realm/playgrounds', rust)).body.id, 2);
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds, [{ id: 1, ...python }, { id: 2, ...rust }]);

  const removed = await verifyAction(t, s, hamlet, { action: () => iago.call('DELETE', '/realm/playgrounds/1'), numEvents: 1, stateChangeExpected: true });
  t.same(removed.actionResult.body, { result: 'success', msg: '' });
  t.same(removed.after.realm_playgrounds, [{ id: 2, ...rust }]);
  // Ids are not reused.
  t.equal((await iago.call('POST', '/realm/playgrounds', python)).body.id, 3);

  const before = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds;
  const cases: Array<[typeof iago, 'POST' | 'DELETE', string, Record<string, unknown>, object]> = [
    [hamlet, 'POST', '/realm/playgrounds', { ...python, name: 'Other' }, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [hamlet, 'DELETE', '/realm/playgrounds/2', {}, err('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL')],
    [iago, 'DELETE', '/realm/playgrounds/1', {}, err('Invalid playground')],
    [iago, 'POST', '/realm/playgrounds', python, err('Realm playground with this Realm, Pygments language and Name already exists.')],
    [iago, 'POST', '/realm/playgrounds', { ...python, name: '' }, err('This field cannot be blank.')],
    [iago, 'POST', '/realm/playgrounds', { ...python, pygments_language: 'py$thon' }, err('Invalid characters in pygments language')],
    [iago, 'POST', '/realm/playgrounds', { ...python, url_template: 'https://x.example.com/{code' }, err('Invalid URL template.')],
    [iago, 'POST', '/realm/playgrounds', { ...python, url_template: 'https://x.example.com/' }, err('Missing the required variable "code" in the URL template')],
    [iago, 'POST', '/realm/playgrounds', { ...python, url_template: 'https://x.example.com/{code}/{lang}' }, err('"code" should be the only variable present in the URL template')],
    [iago, 'POST', '/realm/playgrounds', { name: 'x', pygments_language: 'x' }, { result: 'error', msg: "Missing 'url_template' argument", code: 'REQUEST_VARIABLE_MISSING' }],
  ];
  for (const [caller, method, path, params, expected] of cases) {
    const r = await verifyAction(t, s, hamlet, { action: () => caller.call(method, path, params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, `${method} ${path} ${JSON.stringify(params)}`);
    t.match(r.actionResult.body, expected);
  }
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds, before, 'unchanged after errors');
});
