/**
 * The empty topic in `user_topic` events and `/register` `user_topics` (Zulip's
 * `process_user_topic_event`, FL 334 `empty_topic_name` client capability): clients with the
 * capability see `""`, the others the realm's empty-topic display name. Both are checked with
 * verifyAction (events folded into the initial state = a fresh register).
 */
import t from 'tap';
import { startTestServer } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';

const VERONA = 1;
const types = { eventTypes: ['user_topic'] };
type Row = { stream_id: number; topic_name: string; visibility_policy: number };
/** The user's rows in Verona (the demo realm has others). */
const verona = (rows: Row[]) => rows.filter((r) => r.stream_id === VERONA);

t.test('user_topic events and user_topics per empty_topic_name', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const displayName = (await hamlet.call('POST', '/register', { fetch_event_types: ['realm'] })).body.realm_empty_topic_display_name as string;
  t.equal(displayName, 'general chat');

  const modern = await verifyAction(t, s, hamlet, {
    ...types, registerParams: { client_capabilities: { empty_topic_name: true } }, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('POST', '/user_topics', { stream_id: VERONA, topic: '', visibility_policy: 1 }),
  });
  t.same(modern.actionResult.body, { result: 'success', msg: '' });
  t.match(modern.events[0], { type: 'user_topic', stream_id: VERONA, topic_name: '', visibility_policy: 1 });
  t.match(verona(modern.after.user_topics), [{ stream_id: VERONA, topic_name: '', visibility_policy: 1 }]);

  const legacy = await verifyAction(t, s, hamlet, {
    ...types, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('POST', '/user_topics', { stream_id: VERONA, topic: '', visibility_policy: 3 }),
  });
  t.match(verona(legacy.before.user_topics), [{ stream_id: VERONA, topic_name: displayName, visibility_policy: 1 }], 'register shows the display name');
  t.match(legacy.events[0], { type: 'user_topic', stream_id: VERONA, topic_name: displayName, visibility_policy: 3 });
  t.match(verona(legacy.after.user_topics), [{ stream_id: VERONA, topic_name: displayName, visibility_policy: 3 }]);

  // A named topic is never rewritten; removing (legacy client) and re-adding (modern client) the empty topic's row.
  const named = await verifyAction(t, s, hamlet, {
    ...types, numEvents: 1, stateChangeExpected: true,
    action: () => hamlet.call('POST', '/user_topics', { stream_id: VERONA, topic: 'welcome', visibility_policy: 2 }),
  });
  t.match(named.events[0], { topic_name: 'welcome' });
  for (const caps of [{}, { client_capabilities: { empty_topic_name: true } }]) {
    const removed = await verifyAction(t, s, hamlet, {
      ...types, registerParams: caps, numEvents: 1, stateChangeExpected: true,
      action: () => hamlet.call('POST', '/user_topics', { stream_id: VERONA, topic: '', visibility_policy: caps.client_capabilities ? 1 : 0 }),
    });
    t.match(removed.events[0], { topic_name: caps.client_capabilities ? '' : displayName });
  }
});

t.test('an invalid user_topic request sends nothing and changes nothing', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const failed = await verifyAction(t, s, hamlet, {
    ...types, numEvents: 0, stateChangeExpected: false,
    action: () => hamlet.call('POST', '/user_topics', { stream_id: 9999, topic: '', visibility_policy: 1 }),
  });
  t.same(failed.actionResult.body, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
});
