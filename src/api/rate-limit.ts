/**
 * A fixed-window failure counter per key (https://zulip.com/api/http-headers), e.g. failed password
 * attempts per username. Memory is bounded: expired windows are dropped as they are seen and the
 * table is swept when it grows.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  /**
   * @param max failures allowed per window
   * @param windowSeconds window length in seconds
   * @param now clock in milliseconds (injectable for tests)
   */
  constructor(
    private readonly max: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again (float), or 0 when not blocked. */
  blockedFor(key: string): number {
    const w = this.windows.get(key);
    if (w === undefined) return 0;
    const left = (w.resetAt - this.now()) / 1000;
    if (left <= 0) {
      this.windows.delete(key);
      return 0;
    }
    return w.count >= this.max ? left : 0;
  }

  /** Records one failure for `key`. */
  fail(key: string): void {
    const now = this.now();
    const w = this.windows.get(key);
    if (w === undefined || w.resetAt <= now) {
      if (this.windows.size > 100_000) this.sweep(now);
      this.windows.set(key, { count: 1, resetAt: now + this.windowSeconds * 1000 });
    } else {
      w.count++;
    }
  }

  /** Forgets `key` (after a success). */
  clear(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}
