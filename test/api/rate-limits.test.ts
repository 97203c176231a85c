/**
 * Zulip's API rate limits through the real server (api/api-rate-limits.ts, registry.ts):
 * `api_by_user` 200 / 60 s with `X-RateLimit-*` headers on every authenticated answer, 429
 * RATE_LIMIT_HIT past it (state unchanged), `api_by_ip` 100 / 60 s for unauthenticated calls,
 * long-polls not counted, and `--rate-limits off`.
 *
 * The buckets refill while a test runs (one call per 0.3 s per user), so the tests call in
 * concurrent batches until the first 429 and bound how many calls could have passed in the time
 * it took: a slow machine changes the count, not the outcome.
 */
import t from 'tap';
import { startTestServer, type Caller, type Reply } from '../support/test-server.js';

/**
 * Calls `call` in batches of `batch` concurrent calls until one answers 429 (at most `max`
 * calls); returns how many succeeded, the first 429 and the seconds it took.
 */
async function untilLimited(call: () => Promise<Reply>, max: number, batch = 10) {
  const started = Date.now();
  let passed = 0;
  let limited: Reply | null = null;
  for (let sent = 0; sent < max && limited === null; sent += batch) {
    for (const reply of await Promise.all(Array.from({ length: batch }, call))) {
      if (reply.status === 429) limited ??= reply;
      else passed++;
    }
  }
  return { passed, limited, seconds: (Date.now() - started) / 1000 };
}

t.test('api_by_user: 200 calls, then 429 with retry-after; other users unaffected', async (t) => {
  const s = await startTestServer(t, { rateLimits: true });
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  const realm = s.server.registry.bySubdomainName('')!;

  const first = await hamlet.call('GET', '/users/me');
  t.equal(first.status, 200);
  t.equal(first.headers.get('x-ratelimit-limit'), '200');
  t.equal(first.headers.get('x-ratelimit-remaining'), '199');
  const reset = Number(first.headers.get('x-ratelimit-reset'));
  t.ok(Number.isInteger(reset) && Math.abs(reset - Date.now() / 1000) <= 2, 'reset is a UNIX time in whole seconds, about now');
  const error = await hamlet.call('GET', '/messages/999999');
  t.equal(error.status, 400);
  // 198, or 199 if the bucket refilled meanwhile (one call per 0.3 s) on a slow machine.
  t.ok(['198', '199'].includes(error.headers.get('x-ratelimit-remaining')!), 'error answers carry the headers too');

  const run = await untilLimited(() => hamlet.call('GET', '/users/me'), 600);
  t.ok(run.limited, 'hamlet is eventually refused');
  const allowance = 199 + Math.ceil(run.seconds / 0.3) + 1; // what was left, plus the refill meanwhile
  t.ok(run.passed >= 198 && run.passed <= allowance, `${run.passed + 2} calls passed in ${run.seconds.toFixed(1)} s (≤ ${allowance + 2})`);
  const limited = run.limited!;
  t.match(limited.body, { result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
  const retryAfter = limited.body['retry-after'];
  t.ok(typeof retryAfter === 'number' && retryAfter > 0 && retryAfter <= 0.3, `retry-after ${retryAfter} s ≤ 0.3`);
  t.equal(limited.headers.get('retry-after'), String(retryAfter));
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  t.equal(limited.headers.get('x-ratelimit-limit'), '200');

  // A burst of sends while over the limit: the refused ones send nothing.
  const nextId = realm.state.nextIds.message;
  const sends = await Promise.all(
    Array.from({ length: 20 }, (_, i) => hamlet.call('POST', '/messages', { type: 'stream', to: 'Verona', topic: 'flood', content: `flood ${i}` })),
  );
  const accepted = sends.filter((r) => r.status === 200).length;
  t.ok(sends.some((r) => r.status === 429), 'sends over the limit are refused');
  t.ok(sends.every((r) => r.status === 200 || r.status === 429), 'every send answered 200 or 429');
  t.equal(realm.state.nextIds.message - nextId, accepted, 'exactly the accepted sends created messages');

  const other = await othello.call('GET', '/users/me');
  t.equal(other.status, 200, 'othello has his own bucket');
  t.equal(other.headers.get('x-ratelimit-remaining'), '199');

  await new Promise((r) => setTimeout(r, Math.ceil(retryAfter * 1000) + 350));
  const again = await hamlet.call('GET', '/users/me');
  t.equal(again.status, 200, 'allowed again after retry-after');
});

t.test('long-polls (GET /events) are not counted, but answer with the headers', async (t) => {
  const s = await startTestServer(t, { rateLimits: true });
  const hamlet = await s.as('hamlet@zulip.com');
  const reg = await hamlet.call('POST', '/register', { event_types: ['message'], fetch_event_types: ['message'] });
  t.equal(reg.status, 200);
  for (let i = 0; i < 250; i++) {
    const poll = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
    if (poll.status !== 200) {
      t.fail(`poll ${i} answered ${poll.status}`);
      break;
    }
  }
  const after = await hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
  t.equal(after.status, 200, '251 polls, none refused');
  t.equal(after.headers.get('x-ratelimit-limit'), '200');
  const remaining = Number(after.headers.get('x-ratelimit-remaining'));
  t.ok(remaining >= 198, `polls left the bucket untouched (${remaining} remaining after register + 251 polls)`);

  // A poll that waits: the event arrives while it is parked.
  const waiting = hamlet.call('GET', '/events', { queue_id: reg.body.queue_id, last_event_id: -1 });
  const othello = await s.as('othello@zulip.com');
  const sent = await othello.call('POST', '/messages', { type: 'direct', to: JSON.stringify([hamlet.userId]), content: 'hi' });
  t.equal(sent.status, 200);
  const woke = await waiting;
  t.equal(woke.status, 200);
  t.equal(woke.body.events[0]?.type, 'message');

  const badParam = await hamlet.call('GET', '/messages', { anchor: 'bogus', num_before: 1, num_after: 0 });
  t.equal(badParam.status, 400);
  t.match(badParam.body, { msg: 'Invalid anchor' });
  // A counted call leaves at most 199 of 200, however long the refill had.
  t.ok(Number(badParam.headers.get('x-ratelimit-remaining')) <= 199, 'a parameter error (thrown while decoding) is counted and carries the headers');
});

t.test('api_by_ip: 100 unauthenticated calls per IP, refused credentials included', async (t) => {
  const s = await startTestServer(t, { rateLimits: true });
  const first = await s.request('GET', '/server_settings');
  t.equal(first.status, 200);
  t.equal(first.headers.get('x-ratelimit-limit'), '100');
  t.equal(first.headers.get('x-ratelimit-remaining'), '99');
  const badKey = await s.request('GET', '/users/me', { headers: { Authorization: 'Basic ' + Buffer.from('hamlet@zulip.com:' + 'x'.repeat(32)).toString('base64') } });
  t.equal(badKey.status, 401);
  const afterBadKey = Number(badKey.headers.get('x-ratelimit-remaining'));
  t.ok(afterBadKey === 98 || afterBadKey === 99, 'a refused API key counts against the IP (98, or 99 after a refill)');
  t.ok(badKey.headers.get('www-authenticate'), 'and keeps its WWW-Authenticate');
  const noAuth = await s.request('GET', '/users/me');
  t.equal(noAuth.status, 401);
  t.ok(Number(noAuth.headers.get('x-ratelimit-remaining')) <= afterBadKey, 'so does a request without credentials');

  const run = await untilLimited(() => s.request('GET', '/server_settings'), 400);
  t.ok(run.limited, 'the IP is eventually refused');
  const allowance = 99 + Math.ceil(run.seconds / 0.6) + 1; // what was left, plus the refill meanwhile
  t.ok(run.passed >= 97 && run.passed <= allowance, `${run.passed + 3} unauthenticated calls passed (≤ ${allowance + 3})`);
  t.match(run.limited!.body, { code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
  t.ok(run.limited!.body['retry-after'] > 0 && run.limited!.body['retry-after'] <= 0.6, 'one call per 0.6 s after the burst');
  // A concurrent batch, so it outruns the refill (one call per 0.6 s) on a slow machine too.
  const logins = await Promise.all(
    Array.from({ length: 10 }, () => s.request('POST', '/fetch_api_key', { params: { username: 'hamlet@zulip.com', password: 'wrong' } })),
  );
  t.ok(logins.some((r) => r.status === 429), 'logins from that IP are refused too');
  t.ok(logins.every((r) => r.status === 429 || r.status === 401), 'each is refused or a failed login');
});

t.test('--rate-limits off: no limit, no headers', async (t) => {
  const s = await startTestServer(t, { rateLimits: false });
  const hamlet: Caller = await s.as('hamlet@zulip.com');
  let refused = 0;
  let last: Reply | undefined;
  for (let i = 0; i < 260; i++) {
    last = await hamlet.call('GET', '/users/me');
    if (last.status !== 200) refused++;
  }
  t.equal(refused, 0, '260 calls in a row all answered 200');
  t.equal(last!.headers.get('x-ratelimit-limit'), null, 'no X-RateLimit-* headers');
  for (let i = 0; i < 110; i++) if ((await s.request('GET', '/server_settings')).status !== 200) refused++;
  t.equal(refused, 0, '110 unauthenticated calls all answered');
});
