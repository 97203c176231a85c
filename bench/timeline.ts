/**
 * Latency over time: responses bucketed per second of the run, each bucket summarized as count,
 * p50, p99 and max (ms). Shared by the closed-loop (autocannon) and open-loop runners and the
 * fan-out scenario, so every result has the same shape for the HTML report (bench/html-report.ts).
 */

/** One second of a run. */
export interface TimelinePoint {
  /** Seconds since the run started (bucket start). */
  t: number;
  /** Responses in the bucket. */
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentileOf(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Collects (time, latency) pairs; bounded by the number of responses of one run. */
export class Timeline {
  private readonly buckets: number[][] = [];

  /** @param atMs ms since the run started; @param latencyMs the response's latency */
  record(atMs: number, latencyMs: number): void {
    const i = Math.max(0, Math.floor(atMs / 1000));
    (this.buckets[i] ??= []).push(latencyMs);
  }

  points(): TimelinePoint[] {
    const out: TimelinePoint[] = [];
    for (let i = 0; i < this.buckets.length; i++) {
      const b = (this.buckets[i] ?? []).slice().sort((x, y) => x - y);
      out.push({ t: i, n: b.length, p50: percentileOf(b, 50), p99: percentileOf(b, 99), max: b.length > 0 ? b[b.length - 1]! : NaN });
    }
    return out;
  }
}
