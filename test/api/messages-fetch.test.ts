/**
 * GET /messages (https://zulip.com/api/get-messages) through the real HTTP stack, on the demo
 * organization plus a fixed set of messages sent through the API.
 *
 * Message ids after setup (demo 1–6, then ours 7–15):
 *   1 iago→Verona "welcome"      2 hamlet→Verona "welcome"   3 othello→Verona "welcome"
 *   4 hamlet→Denmark "castle"    5 hamlet→othello (DM)       6 othello→hamlet (DM)
 *   7 hamlet→Verona "lunch plans" (link)                     8 othello→Verona "Lunch Plans"
 *   9 iago→Denmark "✔ castle gate"                           10 iago→"core team" "secret"
 *   11 desdemona→Venice "canals" (hamlet not subscribed)      12 hamlet→othello+iago (group DM)
 *   13 iago→hamlet (DM)          14 hamlet→Verona, empty topic
 *   15 cordelia→Scotland "files" (attachment + image link)
 * hamlet's unread rows: 1 3 6 8 9 10 13 15.
 */
import t from 'tap';
import { startTestServer, type Caller, type Reply } from '../support/test-server.js';
import { upload } from '../support/upload-client.js';

const NEWEST = 10_000_000_000_000_000;

const ids = (r: Reply): number[] => {
  if (r.status !== 200) throw new Error(`expected success, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.messages.map((m: { id: number }) => m.id);
};

/** The body without its messages, plus their ids. */
const summary = (r: Reply): Record<string, any> => {
  const { messages, ...rest } = r.body;
  return { ...rest, ids: (messages as Array<{ id: number }>).map((m) => m.id) };
};

const badNarrow = (desc: string) => ({ result: 'error', msg: `Invalid narrow operator: ${desc}`, code: 'BAD_NARROW', desc });
const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });

t.test('GET /messages', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const iago = await s.as('iago@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  const cordelia = await s.as('cordelia@zulip.com');
  const polonius = await s.as('polonius@zulip.com');
  const shiva = await s.as('shiva@zulip.com');

  const send = async (who: Caller, params: Record<string, unknown>) => {
    const r = await who.call('POST', '/messages', params);
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body.id as number;
  };
  // has:attachment needs an upload the message really links (Zulip's do_claim_attachments).
  const report = await upload(s, cordelia, [['file', '%PDF-1.4 report', 'report.pdf', 'application/pdf']]);
  if (report.status !== 200) throw new Error(JSON.stringify(report.body));
  const sent = [
    await send(hamlet, { type: 'stream', to: 'Verona', topic: 'lunch plans', content: 'Pizza at noon? https://example.com/menu', read_by_sender: true }),
    await send(othello, { type: 'stream', to: 'Verona', topic: 'Lunch Plans', content: 'I vote for **sushi**' }),
    await send(iago, { type: 'stream', to: 'Denmark', topic: '✔ castle gate', content: 'The castle gate is fixed' }),
    await send(iago, { type: 'stream', to: 'core team', topic: 'secret', content: 'Plans for the castle' }),
    await send(desdemona, { type: 'stream', to: 'Venice', topic: 'canals', content: 'A gondola ride' }),
    await send(hamlet, { type: 'direct', to: [othello.userId, iago.userId], content: 'group chat hello', read_by_sender: true }),
    await send(iago, { type: 'direct', to: [hamlet.userId], content: 'hi hamlet from iago' }),
    await send(hamlet, { type: 'stream', to: 'Verona', topic: '', content: 'empty topic message', read_by_sender: true }),
    await send(cordelia, { type: 'stream', to: 'Scotland', topic: 'files', content: `[report.pdf](${report.body.url}) and https://example.com/pic.png` }),
  ];
  t.same(sent, [7, 8, 9, 10, 11, 12, 13, 14, 15], 'setup ids');

  const get = (who: Caller, params: Record<string, unknown>) => who.call('GET', '/messages', params);
  const newest = (who: Caller, narrow?: unknown, extra: Record<string, unknown> = {}) =>
    get(who, {
      anchor: 'newest',
      num_before: 100,
      num_after: 0,
      ...(narrow === undefined ? {} : { narrow: typeof narrow === 'string' ? narrow : JSON.stringify(narrow) }),
      ...extra,
    });
  const op = (operator: string, operand: unknown, negated?: boolean) =>
    negated === undefined ? { operator, operand } : { operator, operand, negated };

  const HAMLET_ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15];
  const without = (xs: number[], drop: number[]) => xs.filter((x) => !drop.includes(x));

  t.test('anchors, include_anchor and found_* flags', async (t) => {
    t.same(summary(await get(hamlet, { anchor: 'newest', num_before: 3, num_after: 0 })), {
      result: 'success', msg: '', found_anchor: false, found_oldest: false, found_newest: true, history_limited: false,
      anchor: NEWEST, ids: [13, 14, 15],
    });
    t.same(summary(await get(hamlet, { anchor: 'newest', num_before: 100, num_after: 0 })), {
      result: 'success', msg: '', found_anchor: false, found_oldest: true, found_newest: true, history_limited: false,
      anchor: NEWEST, ids: HAMLET_ALL,
    });
    t.same(summary(await get(hamlet, { anchor: 'newest', num_before: 2, num_after: 5 })).ids, [14, 15], 'num_after ignored at newest');
    t.same(summary(await get(hamlet, { anchor: 'oldest', num_before: 0, num_after: 3 })), {
      result: 'success', msg: '', found_anchor: false, found_oldest: true, found_newest: false, history_limited: false,
      anchor: 0, ids: [1, 2, 3],
    });
    t.same(summary(await get(hamlet, { anchor: 'oldest', num_before: 5, num_after: 3 })).ids, [1, 2, 3]);
    t.same(summary(await get(hamlet, { anchor: '5', num_before: 2, num_after: 2 })), {
      result: 'success', msg: '', found_anchor: true, found_oldest: false, found_newest: false, history_limited: false,
      anchor: 5, ids: [3, 4, 5, 6, 7],
    });
    t.same(summary(await get(hamlet, { anchor: 11, num_before: 1, num_after: 1 })), {
      result: 'success', msg: '', found_anchor: false, found_oldest: false, found_newest: false, history_limited: false,
      anchor: 11, ids: [10, 12],
    }, 'anchor without access is not found');
    t.same(ids(await get(hamlet, { anchor: 11, include_anchor: false, num_before: 0, num_after: 2 })), [12, 13]);
    t.same(ids(await get(hamlet, { anchor: 5, include_anchor: false, num_before: 2, num_after: 0 })), [3, 4]);
    t.same(ids(await get(hamlet, { anchor: 5, include_anchor: true, num_before: 2, num_after: 0 })), [3, 4, 5]);
    t.same(ids(await get(hamlet, { anchor: 5, include_anchor: false, num_before: 0, num_after: 1 })), [6]);
    const zero = await get(hamlet, { anchor: 5, include_anchor: false, num_before: 0, num_after: 0 });
    t.same(summary(zero), {
      result: 'success', msg: '', found_anchor: true, found_oldest: false, found_newest: false, history_limited: false,
      anchor: 5, ids: [5],
    }, 'num_before=num_after=0 returns the anchor row, as Zulip');
    t.same(summary(await get(hamlet, { anchor: '99999999999999999999', num_before: 1, num_after: 0 })).anchor, NEWEST, 'huge → 10^16');
    t.same(ids(await get(hamlet, { anchor: '99999999999999999999', num_before: 1, num_after: 0 })), [15]);
    const negative = await get(hamlet, { anchor: '-5', num_before: 0, num_after: 1 });
    t.same([negative.body.anchor, ids(negative), negative.body.found_oldest], [0, [1], true], 'negative → 0');
    const low = await get(hamlet, { anchor: 2, num_before: 5, num_after: 0 });
    t.same([ids(low), low.body.found_oldest, low.body.found_newest, low.body.found_anchor], [[1, 2], true, false, true]);
    const high = await get(hamlet, { anchor: 14, num_before: 0, num_after: 5 });
    t.same([ids(high), high.body.found_oldest, high.body.found_newest], [[14, 15], false, true]);
    t.same(ids(await get(hamlet, { anchor: ' +1_0 ', num_before: ' 1 ', num_after: '0' })), [9, 10], 'Python int() parsing');
  });

  t.test('first_unread', async (t) => {
    const r = await get(hamlet, { anchor: 'first_unread', num_before: 0, num_after: 2 });
    // the anchor row plus two after it
    t.same(summary(r), {
      result: 'success', msg: '', found_anchor: true, found_oldest: false, found_newest: false, history_limited: false,
      anchor: 1, ids: [1, 2, 3],
    });
    t.same(r.body.messages.map((m: { flags: string[] }) => m.flags), [[], ['read'], []]);
    t.same(summary(await get(hamlet, { use_first_unread_anchor: true, num_before: 0, num_after: 1 })).anchor, 1);
    t.same(summary(await get(hamlet, { anchor: 'newest', use_first_unread_anchor: true, num_before: 0, num_after: 1 })).anchor, 1,
      'use_first_unread_anchor wins over anchor');
    t.same(summary(await newest(hamlet, [op('channel', 'Denmark')], { anchor: 'first_unread', num_before: 1, num_after: 1 })), {
      result: 'success', msg: '', found_anchor: true, found_oldest: false, found_newest: true, history_limited: false,
      anchor: 9, ids: [4, 9],
    });
    t.same(summary(await newest(hamlet, [op('sender', 'hamlet@zulip.com')], { anchor: 'first_unread', num_before: 2, num_after: 3 })), {
      result: 'success', msg: '', found_anchor: false, found_oldest: false, found_newest: true, history_limited: false,
      anchor: NEWEST, ids: [12, 14],
    }, 'nothing unread: anchor is newest');
  });

  t.test('parameter errors', async (t) => {
    t.same((await get(hamlet, { num_before: 1, num_after: 0 })).body, bad("Missing 'anchor' argument."));
    t.same((await get(hamlet, { anchor: 'abc', num_before: 1, num_after: 0 })).body, bad('Invalid anchor'));
    t.same((await get(hamlet, { anchor: '5.0', num_before: 1, num_after: 0 })).body, bad('Invalid anchor'));
    t.same((await get(hamlet, { anchor: 'newest', num_after: 0 })).body, {
      result: 'error', msg: "Missing 'num_before' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'num_before',
    });
    t.same((await get(hamlet, { anchor: 'newest', num_before: 1 })).body, {
      result: 'error', msg: "Missing 'num_after' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'num_after',
    });
    t.same((await get(hamlet, { anchor: 'newest', num_before: '-1', num_after: 0 })).body, {
      result: 'error', msg: "Bad value for 'num_before': -1", code: 'REQUEST_VARIABLE_INVALID', var_name: 'num_before', bad_value: '-1',
    });
    t.same((await get(hamlet, { anchor: 'newest', num_before: 1, num_after: 'x' })).body, {
      result: 'error', msg: "Bad value for 'num_after': x", code: 'REQUEST_VARIABLE_INVALID', var_name: 'num_after', bad_value: 'x',
    });
    t.same((await get(hamlet, { anchor: 'newest', num_before: '4294967296', num_after: 0 })).body.msg, "Bad value for 'num_before': 4294967296");
    t.equal((await get(hamlet, { anchor: 'newest', num_before: '4294967295', num_after: 0 })).body.msg,
      'Too many messages requested (maximum 5000).');
    t.same((await get(hamlet, { anchor: 'newest', num_before: 4000, num_after: 1001 })).body, bad('Too many messages requested (maximum 5000).'));
    t.equal((await get(hamlet, { anchor: 'newest', num_before: 4000, num_after: 1000 })).status, 200, '5000 is allowed');
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 1, include_anchor: false })).body,
      bad('The anchor can only be excluded at an end of the range'));
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 0, include_anchor: 'yes' })).body,
      bad('Argument "include_anchor" is not valid JSON.'));
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 0, include_anchor: '1' })).body, bad('include_anchor is not a boolean'));
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 0, apply_markdown: '1' })).body, bad('apply_markdown is not a boolean'));
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 0, client_gravatar: 'no' })).body,
      bad('Argument "client_gravatar" is not valid JSON.'));
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 0, use_first_unread_anchor: '"x"' })).body,
      bad('use_first_unread_anchor is not a boolean'));
    t.same((await get(hamlet, { anchor: 5, num_before: 1, num_after: 0, allow_empty_topic_name: 'null' })).body,
      bad('allow_empty_topic_name is not a boolean'));
    t.same((await newest(hamlet, 'nope')).body, {
      result: 'error', msg: "Bad value for 'narrow': nope", code: 'REQUEST_VARIABLE_INVALID', var_name: 'narrow', bad_value: 'nope',
    });
    t.same((await newest(hamlet, '{"operator": "is"}')).body.code, 'REQUEST_VARIABLE_INVALID', 'not a list');
    t.same((await newest(hamlet, '[["stream"]]')).body.msg, `Bad value for 'narrow': [["stream"]]`, 'pair of one');
    t.same((await newest(hamlet, [{ operand: 'x' }])).body, bad('operator key is missing from elem'));
    t.same((await newest(hamlet, [{ operator: 'stream' }])).body, bad('operand key is missing from elem'));
    t.same((await newest(hamlet, [op('stream', [1])])).body, bad('elem["operand"] is not a string or integer'));
    t.same((await newest(hamlet, [op('dm', { a: 1 })])).body, bad('elem["operand"] is not a string or an integer list'));
    t.same((await newest(hamlet, [op('search', ' ')])).body, bad('elem["operand"] cannot be blank.'));
    t.same((await newest(hamlet, [op('topic', 5)])).body, bad('elem["operand"] is not a string'));
    t.same((await newest(hamlet, [op('topic', 'x', 'yes' as unknown as boolean)])).body, bad('elem["negated"] is not a boolean'));
    // parameter order: the first bad one is reported
    t.same((await get(hamlet, { anchor: 'abc', num_before: '-1', num_after: 0 })).body.msg, "Bad value for 'num_before': -1");
    t.same((await get(hamlet, { include_anchor: 'x', num_before: 1, num_after: 0 })).body.msg, 'Argument "include_anchor" is not valid JSON.');
    t.same((await get(hamlet, { anchor: 'abc', num_before: 4000, num_after: 4000 })).body.msg, 'Invalid anchor');
    t.same((await newest(hamlet, [op('foo', 'bar')], { num_before: 6000 })).body.msg, 'Too many messages requested (maximum 5000).',
      'narrow terms are checked after the range');
  });

  t.test('BAD_NARROW errors', async (t) => {
    t.same((await newest(hamlet, [op('foo', 'bar')])).body, badNarrow('unknown operator foo'));
    t.same((await newest(hamlet, [op('channel', 'Atlantis')])).body, badNarrow('unknown channel Atlantis'));
    t.same((await newest(hamlet, [op('stream', 999)])).body, badNarrow('unknown channel 999'));
    t.same((await newest(hamlet, [op('channels', 'all')])).body, badNarrow('unknown channels operand all'));
    t.same((await newest(hamlet, [op('sender', 'nobody@zulip.com')])).body, badNarrow('unknown user nobody@zulip.com'));
    t.same((await newest(hamlet, [op('dm-including', 999)])).body, badNarrow('unknown user 999'));
    t.same((await newest(hamlet, [op('dm', 'othello@zulip.com,nobody@zulip.com')])).body,
      badNarrow('unknown user in othello@zulip.com,nobody@zulip.com'));
    t.same((await newest(hamlet, [op('dm', [5, 999])])).body, badNarrow('unknown user in [5, 999]'));
    t.same((await newest(hamlet, [op('is', 'happy')])).body, badNarrow("unknown 'is' operand happy"));
    t.same((await newest(hamlet, [op('in', 'space')])).body, badNarrow("unknown 'in' operand space"));
    t.same((await newest(hamlet, [op('has', 'cats')])).body, badNarrow("unknown 'has' operand cats"));
    t.same((await newest(hamlet, [op('id', 'x')])).body, badNarrow('Invalid message ID'));
    t.same((await newest(hamlet, [op('id', -3)])).body, badNarrow('Invalid message ID'));
    t.same((await newest(hamlet, [op('id', 2 ** 31)])).body, badNarrow('Invalid message ID'));
    t.same((await newest(hamlet, [op('channel', 'Verona'), op('dm', 'othello@zulip.com')])).body,
      badNarrow('No message can be both a channel message and direct message'));
    t.same((await newest(hamlet, [op('is', 'dm'), op('topic', 'x')])).body,
      badNarrow('No message can be both a channel message and direct message'));
    t.same((await newest(hamlet, [op('is', 'dm', true), op('dm-including', 5)])).body,
      badNarrow('No message can be both a channel message and direct message'), 'negated is:dm counts as a channel narrow');
    t.equal((await newest(hamlet, [op('channel', 'Verona', true), op('is', 'dm')])).status, 200, 'negated channel terms do not conflict');
    t.same((await newest(hamlet, [op('with', 3), op('with', 4)])).body, {
      result: 'error', msg: "Invalid narrow operator combination: Duplicate 'with' operators.", code: 'BAD_NARROW',
      desc: "Duplicate 'with' operators.",
    });
    t.same((await newest(hamlet, [op('with', 'abc')])).body, badNarrow("Invalid 'with' operator"));
  });

  t.test('narrow operators', async (t) => {
    const VERONA = [1, 2, 3, 7, 8, 14];
    t.same(ids(await newest(hamlet, [op('channel', 'Verona')])), VERONA);
    t.same(ids(await newest(hamlet, [op('stream', ' verona ')])), VERONA, 'name: stripped, case-insensitive');
    t.same(ids(await newest(hamlet, [op('channel', 1)])), VERONA, 'by id');
    t.same(ids(await newest(hamlet, [['stream', 'Verona']])), VERONA, 'legacy pair');
    t.same(ids(await newest(hamlet, '[{"operator": "stream", "operand": "Verona", "negated": false}]')), VERONA, "python's spaced JSON");
    t.same(ids(await newest(hamlet, [op('channel', 'Verona', true)])), without(HAMLET_ALL, VERONA));
    t.same(ids(await newest(hamlet, [])), HAMLET_ALL, '[] is no narrow');

    t.same(ids(await newest(hamlet, [op('topic', 'lunch plans')])), [7, 8], 'topics match case-insensitively');
    t.same(ids(await newest(hamlet, [op('channel', 'Verona'), op('topic', 'LUNCH PLANS')])), [7, 8]);
    t.same(ids(await newest(hamlet, [op('channel', 'Verona'), op('topic', 'welcome', true)])), [7, 8, 14]);
    t.same(ids(await newest(hamlet, [op('channel', 'Verona'), op('topic', 'general chat')])), [14], 'empty topic by its display name');
    t.same(ids(await newest(hamlet, [op('channel', 'Verona'), op('topic', '')])), [14]);
    t.same(ids(await newest(hamlet, [op('topic', 'no such topic')])), []);

    t.same(ids(await newest(hamlet, [op('sender', 'othello@zulip.com')])), [3, 6, 8]);
    t.same(ids(await newest(hamlet, [op('sender', 'OTHELLO@zulip.com')])), [3, 6, 8]);
    t.same(ids(await newest(hamlet, [op('sender', othello.userId)])), [3, 6, 8]);
    t.same(ids(await newest(hamlet, [op('sender', othello.userId, true), op('channel', 'Verona')])), [1, 2, 7, 14]);

    t.same(ids(await newest(hamlet, [op('dm', 'othello@zulip.com')])), [5, 6]);
    t.same(ids(await newest(hamlet, [op('dm', [othello.userId])])), [5, 6]);
    t.same(ids(await newest(hamlet, [op('dm', [othello.userId, hamlet.userId])])), [5, 6], 'including oneself');
    t.same(ids(await newest(hamlet, [['pm-with', 'othello@zulip.com']])), [5, 6]);
    t.same(ids(await newest(hamlet, [op('pm_with', 'othello@zulip.com')])), [5, 6]);
    t.same(ids(await newest(hamlet, [op('dm', 'othello@zulip.com, iago@zulip.com')])), [12], 'spaced comma list (python, zulip-terminal)');
    t.same(ids(await newest(hamlet, [op('dm', [iago.userId, othello.userId])])), [12]);
    t.same(ids(await newest(hamlet, [op('dm', [hamlet.userId])])), [], 'no self conversation yet');
    t.same(ids(await newest(hamlet, [op('dm', [])])), [], 'empty list');
    t.same(ids(await newest(hamlet, [op('dm', 'othello@zulip.com', true), op('is', 'dm')])), [12, 13]);

    t.same(ids(await newest(hamlet, [op('dm-including', 'othello@zulip.com')])), [5, 6, 12]);
    t.same(ids(await newest(hamlet, [op('dm-including', iago.userId)])), [12, 13]);
    t.same(ids(await newest(hamlet, [op('dm-including', hamlet.userId)])), [5, 6, 12, 13], 'oneself: every DM');
    t.same(ids(await newest(hamlet, [op('group-pm-with', 'iago@zulip.com')])), [12]);
    t.same(ids(await newest(hamlet, [op('group_pm_with', 'othello@zulip.com')])), [12]);

    t.same(ids(await newest(hamlet, [op('is', 'dm')])), [5, 6, 12, 13]);
    t.same(ids(await newest(hamlet, [op('is', 'private')])), [5, 6, 12, 13]);
    t.same(ids(await newest(hamlet, [op('is', 'dm', true)])), without(HAMLET_ALL, [5, 6, 12, 13]));
    t.same(ids(await newest(hamlet, [op('is', 'unread')])), [1, 3, 6, 8, 9, 10, 13, 15]);
    t.same(ids(await newest(hamlet, [op('is', 'unread', true)])), [2, 4, 5, 7, 12, 14]);
    t.same(ids(await newest(hamlet, [op('is', 'resolved')])), [9]);
    t.same(ids(await newest(hamlet, [op('is', 'resolved', true), op('channel', 'Denmark')])), [4]);
    for (const operand of ['starred', 'mentioned', 'alerted', 'muted']) {
      t.same(ids(await newest(hamlet, [op('is', operand)])), [], `is:${operand}`);
    }
    t.same(ids(await newest(hamlet, [op('is', 'followed')])), [4, 7, 8, 14], 'is:followed: topics hamlet started (automatically followed on initiation)');
    t.same(ids(await newest(hamlet, [op('is', 'starred', true)])), HAMLET_ALL);
    t.same(ids(await newest(hamlet, [op('in', 'home')])), HAMLET_ALL);
    t.same(ids(await newest(hamlet, [op('in', 'all')])), HAMLET_ALL);
    t.same(ids(await newest(hamlet, [op('in', 'home', true)])), [], 'nothing muted');

    t.same(ids(await newest(hamlet, [op('id', 5)])), [5]);
    t.same(ids(await newest(hamlet, [['id', '5']])), [5]);
    t.same(ids(await newest(hamlet, [op('id', 11)])), [], 'no row, no history');
    t.same(ids(await newest(hamlet, [op('id', 5, true)])), without(HAMLET_ALL, [5]));
    t.same(ids(await newest(hamlet, [op('near', '5')])), HAMLET_ALL);

    t.same(ids(await newest(hamlet, [op('has', 'link')])), [7, 15]);
    t.same(ids(await newest(hamlet, [op('has', 'attachment')])), [15]);
    t.same(ids(await newest(hamlet, [op('has', 'image')])), [15]);
    t.same(ids(await newest(hamlet, [op('has', 'reaction')])), []);
    t.same(ids(await newest(hamlet, [op('has', 'link', true), op('channel', 'Verona')])), [1, 2, 3, 8, 14]);

    t.same(ids(await newest(hamlet, [op('with', 8)])), [7, 8], 'with: the topic of that message');
    t.same(ids(await newest(hamlet, [op('channel', 'Denmark'), op('with', 8)])), [7, 8], 'with replaces channel terms');
    t.same(ids(await newest(hamlet, [op('with', '5')])), [5, 6], 'with: a DM conversation');
    t.same(ids(await newest(hamlet, [op('with', 12), op('sender', 'hamlet@zulip.com')])), [12]);
  });

  t.test('search', async (t) => {
    const r = await newest(hamlet, [op('search', 'castle')]);
    t.same(ids(r), [4, 9, 10], 'content or topic, whole words');
    t.same(r.body.messages.map((m: Record<string, string>) => [m.match_subject, m.match_content]), [
      ['<span class="highlight">castle</span>', '<p>Something is rotten in the state of Denmark.</p>'],
      ['✔ <span class="highlight">castle</span> gate', '<p>The <span class="highlight">castle</span> gate is fixed</p>'],
      ['secret', '<p>Plans for the <span class="highlight">castle</span></p>'],
    ]);
    t.same(ids(await newest(hamlet, [op('search', 'Castle GATE')])), [9], 'all words, any case');
    t.same(ids(await newest(hamlet, [op('search', 'castle'), op('search', 'fixed')])), [9], 'search terms are joined');
    t.same(ids(await newest(hamlet, [op('search', '"castle gate"')])), [9], 'phrase');
    t.same(ids(await newest(hamlet, [op('search', '"gate castle"')])), [], 'phrase order matters');
    t.same(ids(await newest(hamlet, [op('search', 'cast')])), [], 'whole words only');
    t.same(ids(await newest(hamlet, [op('search', 'the')])), [], 'stop words only: nothing');
    t.same(ids(await newest(hamlet, [op('search', 'the castle'), op('channel', 'Denmark')])), [4, 9]);
    t.same(ids(await newest(hamlet, [op('search', 'hello')])), [6, 12], 'direct messages too ("Hello, Hamlet!")');
    t.notOk('match_content' in (await newest(hamlet, [op('channel', 'Denmark')])).body.messages[0], 'only for searches');
  });

  t.test('access', async (t) => {
    const OTHELLO_ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 15];
    t.same(ids(await newest(othello)), OTHELLO_ALL, 'no private channel he is not in, no DMs of others');
    t.same((await newest(othello, [op('channel', 'core team')])).body, badNarrow('unknown channel core team'), 'no existence oracle');
    t.same((await newest(othello, [op('channel', 6)])).body, badNarrow('unknown channel 6'));
    t.same((await newest(shiva, [op('channel', 'core team')])).body, badNarrow('unknown channel core team'));
    t.same(ids(await newest(iago, [op('channel', 'core team')])), [10]);
    t.same(ids(await newest(othello, [op('dm', 'iago@zulip.com')])), [], 'no such conversation');
    t.same(ids(await newest(othello, [op('id', 13)])), []);
    t.same((await newest(othello, [op('with', 13)])).body, badNarrow("Invalid 'with' operator"), 'inaccessible with, no conversation');
    t.same(ids(await newest(othello, [op('with', 13), op('dm', 'hamlet@zulip.com')])), [5, 6], 'inaccessible with falls back');
    t.same(ids(await newest(cordelia, [op('dm-including', 'hamlet@zulip.com')])), []);

    // history: public channel messages without a UserMessage row
    const venice = await newest(hamlet, [op('channel', 'Venice')]);
    t.same(ids(venice), [11]);
    t.same(venice.body.messages[0].flags, ['read', 'historical']);
    t.same(ids(await newest(hamlet, [op('channel', 'Venice'), op('is', 'unread', true)])), [], 'is: terms need rows');
    t.same(ids(await newest(hamlet, [op('channel', 'Venice'), op('is', 'resolved', true)])), [11], 'except is:resolved');
    const pub = await newest(hamlet, [op('channels', 'public')]);
    t.same(ids(pub), [1, 2, 3, 4, 7, 8, 9, 11, 14, 15]);
    t.same(pub.body.messages.find((m: { id: number }) => m.id === 11).flags, ['read', 'historical']);
    t.same(pub.body.messages.find((m: { id: number }) => m.id === 1).flags, []);
    t.same(ids(await newest(hamlet, [op('streams', 'web-public')])), [], 'no web-public channels');
    t.same(ids(await newest(hamlet, [op('channels', 'public', true)])), [5, 6, 10, 12, 13]);
    t.same(ids(await newest(cordelia, [op('with', 11)])), [11], 'with a public message without a row');
    t.same(ids(await get(hamlet, { anchor: 11, num_before: 0, num_after: 0, narrow: JSON.stringify([op('channel', 'Venice')]) })), [11]);

    // guests: only subscribed channels, no history of public ones
    const POLONIUS_ALL = [1, 2, 3, 4, 7, 8, 9, 14, 15];
    t.same(ids(await newest(polonius)), POLONIUS_ALL);
    t.same(ids(await newest(polonius, [op('channels', 'public')])), POLONIUS_ALL);
    t.same((await newest(polonius, [op('channel', 'Venice')])).body, badNarrow('unknown channel Venice'));
    const verona = await newest(polonius, [op('channel', 'Verona')]);
    t.same(ids(verona), [1, 2, 3, 7, 8, 14]);
    t.same(verona.body.messages.map((m: { flags: string[] }) => m.flags), [[], [], [], [], [], []]);
  });

  t.test('message format options', async (t) => {
    const one = (extra: Record<string, unknown>) =>
      get(hamlet, { anchor: 8, num_before: 0, num_after: 0, ...extra }).then((r) => r.body.messages[0]);
    const html = await one({});
    t.match(html, {
      id: 8, sender_email: 'othello@zulip.com', content: '<p>I vote for <strong>sushi</strong></p>', content_type: 'text/html',
      subject: 'Lunch Plans', display_recipient: 'Verona', type: 'stream', stream_id: 1, flags: [], avatar_url: null,
    });
    const raw = await one({ apply_markdown: false });
    t.same([raw.content, raw.content_type], ['I vote for **sushi**', 'text/x-markdown']);
    const gravatar = await one({ client_gravatar: false });
    t.match(gravatar.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
    const empty = (extra: Record<string, unknown>) =>
      get(hamlet, { anchor: 14, num_before: 0, num_after: 0, ...extra }).then((r) => r.body.messages[0].subject);
    t.equal(await empty({}), 'general chat');
    t.equal(await empty({ allow_empty_topic_name: true }), '');
    const dm = (await get(hamlet, { anchor: 12, num_before: 0, num_after: 0 })).body.messages[0];
    t.same([dm.type, dm.subject, dm.flags, dm.display_recipient.map((u: { email: string }) => u.email)], [
      'private', '', ['read'], ['hamlet@zulip.com', 'iago@zulip.com', 'othello@zulip.com'],
    ]);
    const extra = await get(hamlet, { anchor: 8, num_before: 0, num_after: 0, bogus: 1, message_ids: '[1]' });
    t.same(extra.body.ignored_parameters_unsupported, ['bogus', 'message_ids']);
    t.notOk('ignored_parameters_unsupported' in (await get(hamlet, { anchor: 8, num_before: 0, num_after: 0 })).body);
  });

  t.test('new messages are seen by later fetches', async (t) => {
    const before = ids(await newest(hamlet, [op('channel', 'Rome')]));
    t.same(before, []);
    const id = await send(hamlet, { type: 'stream', to: 'Rome', topic: 'forum', content: 'Friends, Romans' });
    t.same(ids(await newest(hamlet, [op('channel', 'Rome')])), [id], 'history of a public channel');
    t.same(ids(await newest(hamlet, [op('sender', 'hamlet@zulip.com'), op('topic', 'forum')])), [id], 'indexes caught up');
    t.same(ids(await get(hamlet, { anchor: 'newest', num_before: 1, num_after: 0 })), [id]);
  });
});
