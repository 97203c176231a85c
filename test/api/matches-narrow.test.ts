/**
 * `GET /messages/matches_narrow` (OpenAPI `check-messages-match-narrow`; Zulip's
 * `messages_in_narrow_backend`): which of `msg_ids` match a narrow, with `match_content` /
 * `match_subject` as `GET /messages` returns them (search highlighting, HTML-escaped topics);
 * only messages the viewer received count; parameter and narrow errors.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';

const send = async (c: Caller, params: Record<string, unknown>): Promise<number> => {
  const r = await c.call('POST', '/messages', params);
  if (r.status !== 200) throw new Error(`send failed: ${JSON.stringify(r.body)}`);
  return r.body.id;
};

t.test('GET /messages/matches_narrow', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const matches = (c: Caller, msgIds: number[], narrow: unknown[]) => c.call('GET', '/messages/matches_narrow', { msg_ids: msgIds, narrow });

  const lunch = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'lunch <today> & more', content: 'Lunch plans: pizza at noon' });
  const other = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'work', content: 'meeting at noon' });
  const dm = await send(hamlet, { type: 'direct', to: JSON.stringify([5]), content: 'lunch together?' });
  const venice = await send(desdemona, { type: 'stream', to: 'Venice', topic: 'lunch', content: 'lunch on the canal' });
  const secret = await send(desdemona, { type: 'stream', to: 'core team', topic: 'lunch', content: 'secret lunch' });
  const noTopic = await send(hamlet, { type: 'stream', to: 'Verona', topic: '', content: 'nothing to see' });
  const all = [lunch, other, dm, venice, secret, noTopic, 999999];

  t.test('search: matches with highlighting', async (t) => {
    const r = await matches(othello, all, [{ operator: 'search', operand: 'lunch' }]);
    t.equal(r.status, 200);
    t.same(r.body, {
      result: 'success',
      msg: '',
      messages: {
        [lunch]: {
          match_content: '<p><span class="highlight">Lunch</span> plans: pizza at noon</p>',
          match_subject: '<span class="highlight">lunch</span> &lt;today&gt; &amp; more',
        },
        [dm]: { match_content: '<p><span class="highlight">lunch</span> together?</p>', match_subject: '' },
      },
    }, 'only received, accessible matches; Venice (no row), core team (private) and unknown ids left out');
  });

  t.test('non-search narrows: rendered content and escaped topic, unchanged', async (t) => {
    const r = await matches(othello, all, [{ operator: 'channel', operand: 'Verona' }]);
    t.same(Object.keys(r.body.messages).map(Number), [lunch, other, noTopic]);
    t.same(r.body.messages[lunch], { match_content: '<p>Lunch plans: pizza at noon</p>', match_subject: 'lunch &lt;today&gt; &amp; more' });
    const dms = await matches(othello, all, [{ operator: 'is', operand: 'dm' }]);
    t.same(Object.keys(dms.body.messages).map(Number), [dm], 'is:dm');
    const negated = await matches(othello, [lunch, other], [{ operator: 'topic', operand: 'work', negated: true }]);
    t.same(Object.keys(negated.body.messages).map(Number), [lunch], 'negation');
    const empty = await matches(othello, all, [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'general chat' }]);
    t.same(Object.keys(empty.body.messages).map(Number), [noTopic], 'the empty-topic display name means the empty topic');
    const legacy = await matches(othello, [lunch, other], [['topic', 'WORK']]);
    t.same(Object.keys(legacy.body.messages).map(Number), [other], 'legacy pair form, case-insensitive topic');
    const none = await matches(othello, [lunch], []);
    t.same(Object.keys(none.body.messages).map(Number), [lunch], 'an empty narrow matches every received message');
  });

  t.test('the sender of a message to an unsubscribed channel has a row', async (t) => {
    const r = await matches(desdemona, [venice], [{ operator: 'channel', operand: 'Venice' }]);
    t.same(Object.keys(r.body.messages).map(Number), [venice]);
  });

  t.test('errors', async (t) => {
    t.same((await othello.call('GET', '/messages/matches_narrow', { narrow: [] })).body, {
      result: 'error', msg: "Missing 'msg_ids' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'msg_ids',
    });
    t.same((await othello.call('GET', '/messages/matches_narrow', { msg_ids: [1] })).body, {
      result: 'error', msg: "Missing 'narrow' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'narrow',
    });
    const notList = await othello.call('GET', '/messages/matches_narrow', { msg_ids: '{"a":1}', narrow: [] });
    t.same([notList.status, notList.body.result], [400, 'error'], 'msg_ids must be a list');
    t.same((await matches(othello, [lunch], [{ operator: 'bogus', operand: 'x' }])).body, {
      result: 'error', msg: 'Invalid narrow operator: unknown operator bogus', code: 'BAD_NARROW', desc: 'unknown operator bogus',
    });
    t.same((await matches(othello, [lunch], [{ operator: 'channel', operand: 'core team' }])).body, {
      result: 'error', msg: 'Invalid narrow operator: unknown channel core team', code: 'BAD_NARROW', desc: 'unknown channel core team',
    }, 'a private channel othello cannot see does not exist for him');
  });
});
