/**
 * The token-bucket limiter behind Zulip's API rate limits (api/api-rate-limits.ts), on an
 * injected clock: burst, refill, retry-after, headers, peek, per-key isolation, sweeping.
 */
import t from 'tap';
import { API_BY_IP, API_BY_USER, ApiRateLimits, RateLimiter, rateLimitedError } from '../../src/api/api-rate-limits.js';

t.test("Zulip's rules", async (t) => {
  t.same(API_BY_USER, { windowSeconds: 60, maxCalls: 200 });
  t.same(API_BY_IP, { windowSeconds: 60, maxCalls: 100 });
});

t.test('a key bursts max calls, then gets one call per window/max', async (t) => {
  let now = 1_700_000_000_000;
  const limiter = new RateLimiter({ windowSeconds: 60, maxCalls: 200 }, () => now);
  const first = limiter.take('k');
  t.same(first.headers, { 'X-RateLimit-Limit': '200', 'X-RateLimit-Remaining': '199', 'X-RateLimit-Reset': String(Math.floor((now + 300) / 1000)) });
  let allowed = 1;
  for (let i = 2; i <= 200; i++) if (!limiter.take('k').limited) allowed++;
  t.equal(allowed, 200, 'the whole burst of 200 is allowed');
  const full = limiter.peek('k');
  t.equal(full.headers['X-RateLimit-Remaining'], '0', 'after 200 calls none is left');
  t.equal(full.headers['X-RateLimit-Reset'], String(Math.floor((now + 60_000) / 1000)), 'full again one window later');

  const refused = limiter.take('k');
  t.equal(refused.limited, true, 'call 201 is refused');
  t.ok(Math.abs(refused.retryAfterSeconds - 0.3) < 1e-9, 'free again after window/max = 0.3 s');
  t.equal(refused.headers['Retry-After'], String(refused.retryAfterSeconds));
  t.equal(refused.headers['X-RateLimit-Remaining'], '0');
  t.same(limiter.peek('k').headers, full.headers, 'a refused call is not counted');

  now += 299;
  t.equal(limiter.take('k').limited, true, 'still refused 1 ms early');
  now += 1;
  t.equal(limiter.take('k').limited, false, 'one call allowed after 0.3 s');
  t.equal(limiter.take('k').limited, true, 'and only one');
  now += 60_000;
  t.equal(limiter.peek('k').headers['X-RateLimit-Remaining'], '200', 'a full window later the whole burst is back');
});

t.test('keys are independent; peek never counts', async (t) => {
  const now = 1_000_000;
  const limiter = new RateLimiter({ windowSeconds: 10, maxCalls: 2 }, () => now);
  t.equal(limiter.take('a').limited, false);
  t.equal(limiter.take('a').limited, false);
  t.equal(limiter.take('a').limited, true);
  for (let i = 0; i < 5; i++) t.equal(limiter.peek('b').headers['X-RateLimit-Remaining'], '2');
  t.equal(limiter.take('b').limited, false, 'another key has its own bucket');
  t.equal(limiter.size, 2, 'peek adds no key');
});

t.test('users are keyed per realm; IPs separately', async (t) => {
  const limits = new ApiRateLimits({ byUser: { windowSeconds: 60, maxCalls: 1 }, byIp: { windowSeconds: 60, maxCalls: 1 } }, () => 0);
  t.equal(limits.takeUser(1, 5).limited, false);
  t.equal(limits.takeUser(1, 5).limited, true);
  t.equal(limits.takeUser(2, 5).limited, false, 'user 5 of realm 2 is someone else');
  t.equal(limits.takeIp('127.0.0.1').limited, false);
  t.equal(limits.takeIp('127.0.0.1').limited, true);
  t.equal(limits.peekUser(1, 6).headers['X-RateLimit-Remaining'], '1');
});

t.test('the 429 answer', async (t) => {
  const limiter = new RateLimiter({ windowSeconds: 60, maxCalls: 1 }, () => 5000);
  limiter.take('x');
  const answer = rateLimitedError(limiter.take('x'));
  t.equal(answer.status, 429);
  t.same(answer.body, { result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT', 'retry-after': 60 });
  t.match(answer.headers, { 'Retry-After': '60', 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '65' });
});

t.test('expired keys are swept once the table is large', async (t) => {
  let now = 0;
  const limiter = new RateLimiter({ windowSeconds: 1, maxCalls: 10 }, () => now);
  for (let i = 0; i < 10_001; i++) limiter.take(i);
  t.equal(limiter.size, 10_001);
  now = 2000;
  limiter.take('fresh');
  t.equal(limiter.size, 1, 'every expired key dropped on the next call');
});
