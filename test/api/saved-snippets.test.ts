/**
 * Saved snippets (https://zulip.com/api/create-saved-snippet; Zulip's
 * zerver/views/saved_snippets.py, zerver/actions/saved_snippets.py) over HTTP: create, list, edit,
 * delete with `saved_snippets` events and register state through verifyAction, the typed-endpoint
 * errors (missing, blank, too long) and another user's snippet (404) with nothing changed.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const notFound = bad('Saved snippet does not exist.');
const list = async (c: Caller) => (await c.call('GET', '/saved_snippets')).body.saved_snippets;

t.test('saved snippets over HTTP', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  t.same(await list(hamlet), []);

  const created = await verifyAction(t, s, hamlet, {
    eventTypes: ['saved_snippets'],
    action: () => hamlet.call('POST', '/saved_snippets', { title: '  Welcome  ', content: ' Welcome to the team!\n' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(created.actionResult.body, { result: 'success', msg: '', saved_snippet_id: 1 });
  const snippet = created.events[0]!.saved_snippet;
  t.same({ ...snippet, date_created: 0 }, { id: 1, title: 'Welcome', content: 'Welcome to the team!', date_created: 0 }, 'stripped');
  t.ok(Math.abs(snippet.date_created - Date.now() / 1000) < 120, 'date_created: UNIX seconds');
  t.equal((await othello.call('POST', '/saved_snippets', { title: 'Mine', content: 'x' })).body.saved_snippet_id, 2, 'ids are realm-wide');

  // Errors: nothing created or changed.
  const before = await list(hamlet);
  t.same((await hamlet.call('POST', '/saved_snippets', { content: 'c' })).body, {
    result: 'error', msg: "Missing 'title' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'title',
  });
  t.same((await hamlet.call('POST', '/saved_snippets', { title: 't' })).body, {
    result: 'error', msg: "Missing 'content' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'content',
  });
  t.same((await hamlet.call('POST', '/saved_snippets', { title: '   ', content: 'c' })).body, bad('title cannot be blank'));
  t.same((await hamlet.call('POST', '/saved_snippets', { title: 'x'.repeat(61), content: 'c' })).body, bad('title is too long (limit: 60 characters)'));
  t.same((await hamlet.call('POST', '/saved_snippets', { title: 't', content: 'y'.repeat(10001) })).body, bad('content is too long (limit: 10000 characters)'));
  t.same((await hamlet.call('PATCH', '/saved_snippets/1', { content: ' ' })).body, bad('content cannot be blank'));
  t.same((await hamlet.call('PATCH', '/saved_snippets/2', { title: 'stolen' })).body, notFound, "another user's snippet");
  t.equal((await hamlet.call('PATCH', '/saved_snippets/2', { title: 'stolen' })).status, 404);
  t.same((await hamlet.call('DELETE', '/saved_snippets/2')).body, notFound);
  t.same((await hamlet.call('DELETE', '/saved_snippets/99')).body, notFound);
  t.same(await list(hamlet), before);
  t.same((await list(othello)).map((x: { title: string }) => x.title), ['Mine'], "othello's snippet untouched");

  // An edit without title or content succeeds without an event (Zulip's early exit).
  const noop = await verifyAction(t, s, hamlet, { eventTypes: ['saved_snippets'], action: () => hamlet.call('PATCH', '/saved_snippets/1', {}), numEvents: 0, stateChangeExpected: false });
  t.same(noop.actionResult.body, { result: 'success', msg: '' });
  const edited = await verifyAction(t, s, hamlet, {
    eventTypes: ['saved_snippets'],
    action: () => hamlet.call('PATCH', '/saved_snippets/1', { content: ' Welcome aboard! ' }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same({ ...edited.events[0]!.saved_snippet, date_created: 0 }, { id: 1, title: 'Welcome', content: 'Welcome aboard!', date_created: 0 }, 'update carries the whole snippet');
  const removed = await verifyAction(t, s, hamlet, {
    eventTypes: ['saved_snippets'],
    action: () => hamlet.call('DELETE', '/saved_snippets/1'),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(removed.events[0]!.saved_snippet_id, 1);
  t.same(await list(hamlet), []);
  t.equal((await hamlet.call('POST', '/saved_snippets', { title: 'b', content: 'c' })).body.saved_snippet_id, 3, 'ids are not reused');
});
