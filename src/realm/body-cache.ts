/**
 * A bounded cache of decoded message bodies (raw Markdown + rendered HTML) for one realm, in front
 * of the LMDB bodies table. `GET /messages` mostly reads the newest messages, for many users, so
 * their bodies are decoded once instead of once per request (an LMDB read, a CRC and a msgpack
 * decode per message otherwise).
 *
 * Bounded by the total length of the cached strings (UTF-16 code units) and by the number of
 * entries, oldest insertion evicted first. Only bodies decoded from LMDB are cached (flat strings;
 * freshly rendered HTML can be a rope of many small pieces). Never stale: the realm actor
 * `forget`s a message's entry when it appends a new body for it, and until that body is durable
 * reads are answered from its pending bodies, before this cache. Cached bodies are shared:
 * callers must not mutate them.
 */
import type { MessageBody } from '../domain/records.js';

/** Default budget: 4 Mi code units (at most ~8 MiB of string data)… */
export const BODY_CACHE_CHARS = 4 * 1024 * 1024;
/** …and at most this many bodies. */
export const BODY_CACHE_ENTRIES = 10_000;

export class BodyCache {
  private readonly bodies = new Map<number, MessageBody>();
  private chars = 0;

  constructor(
    private readonly maxChars: number = BODY_CACHE_CHARS,
    private readonly maxEntries: number = BODY_CACHE_ENTRIES,
  ) {}

  /** The cached body of `messageId`, or undefined. */
  get(messageId: number): MessageBody | undefined {
    return this.bodies.get(messageId);
  }

  /** Caches `body` as the current body of `messageId`, evicting the oldest entries over budget. */
  put(messageId: number, body: MessageBody): void {
    const size = body.content.length + body.rendered.length;
    if (size > this.maxChars) return;
    this.forget(messageId);
    this.bodies.set(messageId, body);
    this.chars += size;
    while (this.chars > this.maxChars || this.bodies.size > this.maxEntries) {
      const oldest = this.bodies.keys().next().value!;
      this.forget(oldest);
    }
  }

  /** Drops the entry of `messageId` (its body is being replaced). */
  forget(messageId: number): void {
    const old = this.bodies.get(messageId);
    if (old === undefined) return;
    this.bodies.delete(messageId);
    this.chars -= old.content.length + old.rendered.length;
  }
}
