/**
 * Zulip's API rate limits (zproject/default_settings.py `RATE_LIMITING_RULES`; the algorithm of
 * zerver/lib/rate_limiter.py `TornadoInMemoryRateLimiterBackend.need_to_limit`; API docs
 * https://zulip.com/api/http-headers and https://zulip.com/api/rest-error-handling#rate-limit-exceeded):
 *
 * - `api_by_user`: 200 requests per 60 s per authenticated user (every REST call except the
 *   long-poll `GET /events`, see `Endpoint.rateLimit`);
 * - `api_by_ip`: 100 requests per 60 s per client IP for unauthenticated requests (endpoints
 *   with `auth: 'none'`, and requests whose credentials are refused);
 * - `authenticate_by_username` (failed password logins) stays in `api/auth.ts`.
 *
 * Each key holds one number, its "theoretical arrival time" (Zulip's `reset_times`, a token
 * bucket in GCRA form): every call pushes it `window / max` later; a call that would push it more
 * than one window ahead of now is refused. So a key may burst `max` calls, then gets one call per
 * `window / max` (0.3 s for `api_by_user`), and is never locked out for longer than that.
 *
 * Answers carry `X-RateLimit-Limit` (the rule's max calls), `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (UNIX seconds, integer, when the bucket is full again); a refused call is
 * 429 `RATE_LIMIT_HIT` with `retry-after` (seconds, float) in the body and `Retry-After`.
 */
import { Errors } from '../errors.js';

/** One rule: at most `maxCalls` per `windowSeconds` (bursts included). */
export interface RateRule {
  readonly windowSeconds: number;
  readonly maxCalls: number;
}

/** Zulip's `api_by_user` rule. */
export const API_BY_USER: RateRule = { windowSeconds: 60, maxCalls: 200 };
/** Zulip's `api_by_ip` rule (unauthenticated requests). */
export const API_BY_IP: RateRule = { windowSeconds: 60, maxCalls: 100 };

/** The outcome of one `take` / `peek`. */
export interface RateVerdict {
  /** The call is refused (429). */
  readonly limited: boolean;
  /** The `X-RateLimit-*` headers (plus `Retry-After` when limited). */
  readonly headers: Record<string, string>;
  /** When limited: seconds until one call is allowed again (float); else 0. */
  readonly retryAfterSeconds: number;
}

/** Swept of expired keys when it holds more than this many (at most once per window). */
const SWEEP_ABOVE = 10_000;

/**
 * A token-bucket limiter for one rule over many keys (user ids, IP addresses). Memory: one Map
 * entry per key seen within the last window (expired keys are swept once the map is large).
 */
export class RateLimiter {
  /** key → time (ms since epoch) at which the key's bucket is full again. */
  private readonly fullAt = new Map<number | string, number>();
  private readonly intervalMs: number;
  private readonly windowMs: number;
  private readonly limitHeader: string;
  private nextSweepAt = 0;

  /** @param now clock in milliseconds (injectable for tests) */
  constructor(
    readonly rule: RateRule,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = rule.windowSeconds * 1000;
    this.intervalMs = this.windowMs / rule.maxCalls;
    this.limitHeader = String(rule.maxCalls);
  }

  /** Number of keys currently tracked. */
  get size(): number {
    return this.fullAt.size;
  }

  /** Counts one call for `key`; a refused call is not counted. */
  take(key: number | string): RateVerdict {
    const now = this.now();
    if (this.fullAt.size > SWEEP_ABOVE && now >= this.nextSweepAt) this.sweep(now);
    const previous = this.fullAt.get(key);
    const next = (previous === undefined || previous < now ? now : previous) + this.intervalMs;
    if (next > now + this.windowMs) {
      const retryAfterSeconds = (next - this.windowMs - now) / 1000;
      return {
        limited: true,
        retryAfterSeconds,
        headers: this.headers(0, now + retryAfterSeconds * 1000, String(retryAfterSeconds)),
      };
    }
    this.fullAt.set(key, next);
    return { limited: false, retryAfterSeconds: 0, headers: this.headers(this.remaining(now, next), next) };
  }

  /** The headers `take` would send, without counting a call (for calls that are not counted). */
  peek(key: number | string): RateVerdict {
    const now = this.now();
    const fullAt = Math.max(this.fullAt.get(key) ?? now, now);
    return { limited: false, retryAfterSeconds: 0, headers: this.headers(this.remaining(now, fullAt), fullAt) };
  }

  /** Calls left right now: Zulip's `get_api_calls_left`. */
  private remaining(now: number, fullAt: number): number {
    return Math.max(0, Math.floor(((now + this.windowMs - fullAt) * this.rule.maxCalls) / this.windowMs));
  }

  private headers(remaining: number, resetAtMs: number, retryAfter?: string): Record<string, string> {
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': this.limitHeader,
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': String(Math.floor(resetAtMs / 1000)),
    };
    if (retryAfter !== undefined) headers['Retry-After'] = retryAfter;
    return headers;
  }

  private sweep(now: number): void {
    for (const [key, fullAt] of this.fullAt) if (fullAt <= now) this.fullAt.delete(key);
    this.nextSweepAt = now + this.windowMs;
  }
}

/** The server's two API limiters. */
export class ApiRateLimits {
  readonly byUser: RateLimiter;
  readonly byIp: RateLimiter;

  constructor(rules: { byUser?: RateRule; byIp?: RateRule } = {}, now: () => number = Date.now) {
    this.byUser = new RateLimiter(rules.byUser ?? API_BY_USER, now);
    this.byIp = new RateLimiter(rules.byIp ?? API_BY_IP, now);
  }

  /** Counts one call of user `userId` of realm `realmId` (user ids are per realm). */
  takeUser(realmId: number, userId: number): RateVerdict {
    return this.byUser.take(realmId * 2 ** 32 + userId);
  }

  /** `takeUser`'s headers without counting (long-polls). */
  peekUser(realmId: number, userId: number): RateVerdict {
    return this.byUser.peek(realmId * 2 ** 32 + userId);
  }

  /** Counts one unauthenticated call from `ip`. */
  takeIp(ip: string): RateVerdict {
    return this.byIp.take(ip);
  }
}

/** The 429 body and headers for a refused call (`Errors.rateLimited` plus the `X-RateLimit-*` headers). */
export function rateLimitedError(verdict: RateVerdict) {
  const error = Errors.rateLimited(verdict.retryAfterSeconds);
  return { status: error.status, headers: verdict.headers, body: error.toBody() };
}
