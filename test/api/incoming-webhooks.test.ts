/**
 * Incoming webhooks over HTTP (Zulip's `/api/v1/external/{integration}`, zerver/lib/webhooks/common.py
 * `check_send_webhook_message`): authentication, `stream` / `topic`, the DM to the bot owner, event
 * filters and errors, then each integration with recorded payloads (test/fixtures/webhooks/, cut
 * down from Zulip's zerver/webhooks/<name>/fixtures) and the message text Zulip's
 * zerver/webhooks/<name>/tests.py expects.
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { rawRequest, startTestServer, type Caller, type TestServer } from '../support/test-server.js';
import { INTEGRATIONS } from '../../src/api/webhooks/external.js';

type Json = Record<string, any>;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/webhooks/${name}.json`, import.meta.url), 'utf8');

interface Setup { s: TestServer; hamlet: Caller; botKey: string; botEmail: string; botId: number }

async function setup(t: Test): Promise<Setup> {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const created = (await hamlet.call('POST', '/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2 })).body;
  return { s, hamlet, botKey: created.api_key, botEmail: 'hook-bot@localhost', botId: created.user_id };
}

function post(x: Setup, path: string, body: string, headers: Record<string, string> = {}) {
  return rawRequest(x.s.url, 'POST', path, { 'Content-Type': 'application/json', ...headers }, body);
}

/** The newest message in channel Verona, topic `topic` (raw Markdown). */
async function lastIn(x: Setup, topic: string): Promise<Json | undefined> {
  const narrow = [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: topic }];
  const messages = (await x.hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow, apply_markdown: false })).body.messages as Json[];
  return messages.at(-1);
}

async function countAll(x: Setup): Promise<number> {
  return ((await x.hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 1000, num_after: 0, apply_markdown: false })).body.messages as Json[]).length;
}

t.test('the framework: auth, destination, filters, errors', async (t) => {
  const x = await setup(t);
  const url = (q: string) => `/api/v1/external/json?${q}`;
  const before = await countAll(x);
  t.match((await post(x, url('stream=Verona'), '{}')), { status: 400, body: { result: 'error', msg: "Missing 'api_key' argument", code: 'REQUEST_VARIABLE_MISSING' } });
  t.match((await post(x, url(`api_key=${'x'.repeat(32)}&stream=Verona`), '{}')), { status: 401, body: { msg: 'Invalid API key' } });
  t.match((await post(x, `/api/v1/external/nope?api_key=${x.botKey}`, '{}')), { status: 404 });
  t.match((await post(x, url(`api_key=${x.botKey}&stream=Verona`), '{not json')), { status: 400, body: { msg: 'Malformed JSON' } });
  t.match((await post(x, url(`api_key=${x.botKey}&stream=Verona&only_events=x`), '{}')), { status: 400, body: { result: 'error' } });
  t.equal((await post(x, url(`api_key=${x.botKey}&stream=Verona`), '{}', { 'Content-Type': 'text/plain' })).status, 200, 'the body is read whatever its type');
  t.equal((await lastIn(x, 'JSON'))?.content, '```json\n{}\n```');
  t.equal(await countAll(x), before + 1, 'errors sent nothing');

  // `topic` overrides, a numeric `stream` is an id, Basic auth works, a missing channel is swallowed.
  const verona = (await x.hamlet.call('GET', '/get_stream_id', { stream: 'Verona' })).body.stream_id as number;
  const basic = 'Basic ' + Buffer.from(`${x.botEmail}:${x.botKey}`).toString('base64');
  t.match((await post(x, `/api/v1/external/json?stream=${verona}&topic=deploys`, '{"a":1}', { Authorization: basic })), { status: 200, body: { result: 'success' } });
  t.match(await lastIn(x, 'deploys'), { sender_id: x.botId, content: '```json\n{\n  "a": 1\n}\n```', client: 'ZulipJSONWebhook' });
  t.match((await post(x, url(`api_key=${x.botKey}&stream=Nowhere`), '{}')), { status: 200, body: { result: 'success' } });

  // No `stream`: a DM to the bot's owner.
  t.equal((await post(x, url(`api_key=${x.botKey}`), fixture('json/payload'))).status, 200);
  const dms = (await x.hamlet.call('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'dm', operand: [x.botId] }], apply_markdown: false })).body.messages as Json[];
  t.equal(dms[0]?.content, '```json\n{\n  "action": "deploy",\n  "target": {\n    "env": "production",\n    "ok": true\n  },\n  "note": "caf\\u00e9"\n}\n```');

  // only_events / exclude_events (shell patterns on the integration's event type).
  const gh = (q: string) => post(x, `/api/v1/external/github?api_key=${x.botKey}&stream=Verona&${q}`, fixture('github/issues'), { 'X-GitHub-Event': 'issues' });
  const count = await countAll(x);
  t.equal((await gh('only_events=["push*"]')).body.result, 'success');
  t.equal((await gh('exclude_events=["iss*"]')).body.result, 'success');
  t.equal(await countAll(x), count, 'filtered events sent nothing');
  await gh('only_events=["issues"]');
  t.equal(await countAll(x), count + 1);

  // An incoming webhook bot may post messages, but no other endpoint.
  const botAuth = { Authorization: basic };
  t.match(await x.s.request('GET', '/users/me', { headers: botAuth }), { status: 401, body: { msg: 'This API is not available to incoming webhook bots.', code: 'UNAUTHORIZED' } });
  t.match(await x.s.request('POST', '/messages', { params: { type: 'stream', to: 'Verona', topic: 'direct', content: 'posted' }, headers: botAuth }), { status: 200, body: { result: 'success' } });

  // realm_incoming_webhook_bots lists exactly the served integrations.
  const listed = (await x.hamlet.call('POST', '/register', { fetch_event_types: ['realm_incoming_webhook_bots'] })).body.realm_incoming_webhook_bots as Json[];
  t.same(listed.map((i) => i.name).sort(), Object.keys(INTEGRATIONS).sort());
  t.match(listed.find((i) => i.name === 'grafana'), { display_name: 'Grafana', all_event_types: ['ok', 'pending', 'alerting', 'paused', 'firing', 'resolved'] });

  // A deactivated bot's key stops working.
  t.equal((await x.hamlet.call('DELETE', `/bots/${x.botId}`)).body.result, 'success');
  t.match((await post(x, url(`api_key=${x.botKey}&stream=Verona`), '{}')), { status: 401, body: { msg: 'Account is deactivated' } });
});

/** Posts `fixture` to `integration` and returns the message it produced in Verona under `topic`. */
async function check(t: Test, x: Setup, integration: string, name: string, topic: string, expected: string, headers: Record<string, string> = {}, query = '') {
  const answer = await post(x, `/api/v1/external/${integration}?api_key=${x.botKey}&stream=Verona${query}`, fixture(`${integration}/${name}`), headers);
  t.same(answer.body, { result: 'success', msg: '' }, `${integration}/${name} accepted`);
  t.equal((await lastIn(x, topic))?.content, expected, `${integration}/${name} message`);
}

t.test('GitHub', async (t) => {
  const x = await setup(t);
  const h = (event: string) => ({ 'X-GitHub-Event': event });
  const row = '* Update README.md ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))';
  await check(t, x, 'github', 'push__1_commit', 'public-repo / changes',
    `baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 1 commit to branch changes.\n\n${row}`, h('push'));
  await check(t, x, 'github', 'push__multiple_committers', 'public-repo / changes',
    `baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f) 6 commits to branch changes. Commits by Tomasz (3), Ben (2) and baxterthehacker (1).\n\n${Array(6).fill(row).join('\n')}`, h('push'));
  await check(t, x, 'github', 'push__delete_branch', 'public-repo / feature',
    'eeshangarg [deleted](https://github.com/eeshangarg/public-repo/compare/2e8cf535fb38...000000000000) the branch feature.', h('push'));
  await check(t, x, 'github', 'issues', 'public-repo / issue #2 Spelling error in the README file',
    "baxterthehacker opened [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~", h('issues'));
  await check(t, x, 'github', 'issues', 'notifications',
    "baxterthehacker opened [issue #2 Spelling error in the README file](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~", h('issues'), '&topic=notifications');
  await check(t, x, 'github', 'issue_comment', 'public-repo / issue #2 Spelling error in the README file',
    "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~", h('issue_comment'));
  await check(t, x, 'github', 'pull_request__opened', 'public-repo / PR #1 Update the README with new information',
    'baxterthehacker opened [PR #1](https://github.com/baxterthehacker/public-repo/pull/1) from `baxterthehacker:changes` to `baxterthehacker:master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~', h('pull_request'));
  await check(t, x, 'github', 'pull_request__merged', 'public-repo / PR #1 Update the README with new information',
    'baxterthehacker merged [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).', h('pull_request'));

  const count = await countAll(x);
  const star = await post(x, `/api/v1/external/github?api_key=${x.botKey}&stream=Verona`, fixture('github/star'), h('star'));
  t.same({ status: star.status, body: star.body }, {
    status: 200,
    body: { result: 'error', msg: "The 'star' event isn't currently supported by the GitHub webhook; ignoring", code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: 'GitHub', event_type: 'star' },
  });
  const noHeader = await post(x, `/api/v1/external/github?api_key=${x.botKey}&stream=Verona`, fixture('github/issues'));
  t.same({ status: noHeader.status, body: noHeader.body }, {
    status: 400,
    body: { result: 'error', msg: "Missing the HTTP event header 'X-GitHub-Event'", code: 'MISSING_HTTP_EVENT_HEADER', webhook_name: 'GitHub', header: 'X-GitHub-Event' },
  });
  const anomalous = await post(x, `/api/v1/external/github?api_key=${x.botKey}&stream=Verona`, '{"action":"opened"}', h('issues'));
  t.match({ status: anomalous.status, body: anomalous.body }, { status: 400, body: { msg: 'Unable to parse request: Did GitHub generate this event?' } });
  t.equal(await countAll(x), count, 'unsupported and bad requests sent nothing');
});

t.test('GitLab', async (t) => {
  const x = await setup(t);
  const h = (event: string) => ({ 'X-Gitlab-Event': event });
  await check(t, x, 'gitlab', 'push_hook', 'my-awesome-project / tomek',
    'Tomasz Kolek [pushed](https://gitlab.com/tomaszkolek0/my-awesome-project/compare/5fcdd5551fc3085df79bece2c32b1400802ac407...eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9) 2 commits to branch tomek.\n\n'
      + '* b ([66abd2da288](https://gitlab.com/tomaszkolek0/my-awesome-project/commit/66abd2da28809ffa128ed0447965cf11d7f863a7))\n'
      + '* c ([eb6ae1e591e](https://gitlab.com/tomaszkolek0/my-awesome-project/commit/eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9))', h('Push Hook'));
  await check(t, x, 'gitlab', 'issue_hook__issue_created', 'public-repo / issue #1 Issue title',
    'Eeshan Garg created [issue #1](https://gitlab.com/eeshangarg/public-repo/issues/1):\n\n~~~ quote\nIssue description\n~~~', h('Issue Hook'));
  await check(t, x, 'gitlab', 'issue_hook__issue_closed', 'public-repo / issue #1 Issue title',
    'Eeshan Garg closed [issue #1](https://gitlab.com/eeshangarg/public-repo/issues/1).', h('Issue Hook'));
  await check(t, x, 'gitlab', 'merge_request_hook__merge_request_created', 'my-awesome-project / MR #2 NEW MR',
    'Tomasz Kolek created [MR #2](https://gitlab.com/tomaszkolek0/my-awesome-project/merge_requests/2) from `tomek` to `master`:\n\n~~~ quote\ndescription of merge request\n~~~', h('Merge Request Hook'));
  await check(t, x, 'gitlab', 'merge_request_hook__merge_request_merged', "my-awesome-project / MR #3 Merge branch 'feature'",
    'Eeshan Garg merged [MR #3](https://gitlab.com/eeshangarg/my-awesome-project/merge_requests/3).', h('Merge Request Hook'));
  const wiki = await post(x, `/api/v1/external/gitlab?api_key=${x.botKey}&stream=Verona`, '{}', h('Wiki Page Hook'));
  t.match({ status: wiki.status, body: wiki.body }, { status: 200, body: { code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', msg: "The 'Wiki Page Hook' event isn't currently supported by the GitLab webhook; ignoring" } });
});

t.test('Grafana and Alertmanager', async (t) => {
  const x = await setup(t);
  await check(t, x, 'grafana', 'alert_ok', '[Alerting] Test notification',
    ':squared_ok: **OK**\n\n[Test rule](https://grafana.example.com/dashboard/db/test?fullscreen&edit&tab=alert&panelId=1&orgId=1)\n\nSomeone is testing the alert notification within grafana.');
  await check(t, x, 'grafana', 'alert_alerting', '[Alerting] Test notification',
    ':alert: **ALERTING**\n\n[Test rule](http://localhost:3000/)\n\nSomeone is testing the alert notification within grafana.\n\n**High value:** 100\n**Higher Value:** 200\n\n[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)');
  await check(t, x, 'grafana', 'alert_new', '[TestAlert]',
    ':alert: **FIRING**\n\n**TestAlert**\n\nThis alert was fired at <time:2022-08-31T05:54:04+00:00>.\n\nLabels:\n- alertname: TestAlert\n- instance: Grafana\n\n'
      + "Values:\n[ metric='foo' labels={instance=bar} value=10 ]\n\nAnnotations:\n- summary: Notification test\n\n"
      + '[Silence](https://zuliptestingwh2.grafana.net/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DTestAlert&matcher=instance%3DGrafana)');
  const graph = 'http://cobalt:9090/graph?g0.expr=up+%3D%3D+0&g0.tab=0';
  await check(t, x, 'alertmanager', 'alert', 'localhost:9101', `:squared_ok: **Resolved** InstanceDown ([graph](${graph}))`);
  t.equal((await lastIn(x, 'localhost:9100'))?.content, `:alert: **FIRING**\n* InstanceDown ([graph](${graph}))\n* InstanceDown ([graph](${graph}))`);
  // `name` / `desc` choose the labels: topics by job, alerts described by instance.
  await check(t, x, 'alertmanager', 'alert', 'prometheus', `:alert: **FIRING** localhost:9100 ([graph](${graph}))`, {}, '&name=job&desc=instance');
  t.equal((await lastIn(x, 'node'))?.content, `:squared_ok: **Resolved** localhost:9101 ([graph](${graph}))`);
});

t.test('Slack-compatible incoming webhook', async (t) => {
  const x = await setup(t);
  await check(t, x, 'slack_incoming', 'text', 'alerts', 'Hello, **world**. Visit [our site](https://example.com) or *read* on.');
  // No `topic` and no `channel`: Zulip's "(no topic)", which is the empty topic (general chat) since FL 370.
  await check(t, x, 'slack_incoming', 'attachments', '',
    '## [Build failed](https://ci.example.com/builds/1)\n\nThe **main** branch is broken.\n\n**Commit**: abc123\n**Author**\n\nCI\n\n<time:1609459200>');
  // The form-encoded `payload` field, as Slack clients also send it.
  const form = new URLSearchParams({ payload: JSON.stringify({ text: 'from a form' }) }).toString();
  const answer = await rawRequest(x.s.url, 'POST', `/api/v1/external/slack_incoming?api_key=${x.botKey}&stream=Verona&topic=forms`, { 'Content-Type': 'application/x-www-form-urlencoded' }, form);
  t.equal(answer.body.result, 'success');
  t.equal((await lastIn(x, 'forms'))?.content, 'from a form');
  const missing = await rawRequest(x.s.url, 'POST', `/api/v1/external/slack_incoming?api_key=${x.botKey}&stream=Verona`, { 'Content-Type': 'application/x-www-form-urlencoded' }, 'x=1');
  t.match(missing.body, { result: 'error', msg: "Missing 'payload' argument" });
});
