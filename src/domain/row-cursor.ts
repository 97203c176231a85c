/**
 * One user's UserMessage flags looked up for message ids that come in order, as a message list
 * walks them (newest first while selecting, oldest first while writing the JSON). Each lookup
 * searches outward from the previous one's position — doubling steps, then a binary search inside
 * the last step — so neighbouring ids cost a couple of probes instead of a full binary search
 * (~16 probes in 60,000 rows, each a chunked `Column.get`): that search was 6 % of a list's CPU
 * under load (bench/PROFILE.md §11). Any order gives the same answers as `UserMessages.indexOf`;
 * only the cost depends on it.
 */
import type { UserMessages } from './message-index.js';

/** Flags of one user's rows, looked up near the previous lookup. */
export class RowCursor {
  /** Position of the previous lookup's row, or where it would have been. */
  private at = 0;

  /** `rows`: the user's UserMessages (undefined: a user without rows, every lookup is undefined). */
  constructor(private readonly rows: UserMessages | undefined) {}

  /** The user's flag bits for `messageId` (`Flag`), or undefined when they have no row for it. */
  flags(messageId: number): number | undefined {
    const rows = this.rows;
    if (rows === undefined) return undefined;
    const ids = rows.ids;
    const n = ids.length;
    if (n === 0) return undefined;
    const h = Math.min(this.at, n - 1);
    const v = ids.get(h);
    if (v === messageId) {
      this.at = h;
      return rows.flags.get(h);
    }
    // [lo, hi): the range that must hold `messageId`, found by doubling steps away from h.
    let lo: number;
    let hi: number;
    if (v < messageId) {
      let step = 1;
      lo = h + 1;
      while (h + step < n && ids.get(h + step) < messageId) {
        lo = h + step + 1;
        step *= 2;
      }
      hi = Math.min(n, h + step); // ids.get(h + step) >= messageId: the answer is at most h + step
    } else {
      let step = 1;
      hi = h;
      while (h - step >= 0 && ids.get(h - step) > messageId) {
        hi = h - step;
        step *= 2;
      }
      lo = Math.max(0, h - step); // ids.get(h - step) <= messageId: the answer is at least h - step
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids.get(mid) < messageId) lo = mid + 1;
      else hi = mid;
    }
    this.at = lo;
    return lo < n && ids.get(lo) === messageId ? rows.flags.get(lo) : undefined;
  }
}
