/**
 * Bot storage: a small string key-value store per user, used by bots
 * (https://zulip.com/api/update-bot-storage — not in Zulip's public API index, but served by
 * zproject/urls.py `bot_storage`; Zulip's zerver/lib/bot_storage.py `set_bot_storage`,
 * `get_bot_storage`, `remove_bot_storage`, setting `USER_STATE_SIZE_LIMIT`).
 *
 * State: `RealmState.botStorage` (user id → key → value; absent until first use). Records
 * `bot_storage_set` (entries written, in order) and `bot_storage_removed` (keys deleted), v1. Size
 * is counted as Zulip counts it: the sum of key and value lengths in characters (UTF-16 code units).
 */
import type { RealmState } from './realm-state.js';

/** Zulip's `USER_STATE_SIZE_LIMIT`: characters of keys plus values per user. */
export const BOT_STORAGE_LIMIT_CHARS = 10_000_000;

/** `bot_storage_set` v1. */
export interface BotStorageSet {
  type: 'bot_storage_set';
  v: 1;
  userId: number;
  entries: Array<[key: string, value: string]>;
}

/** `bot_storage_removed` v1. */
export interface BotStorageRemoved {
  type: 'bot_storage_removed';
  v: 1;
  userId: number;
  keys: string[];
}

export type BotStorageRecord = BotStorageSet | BotStorageRemoved;

/** The user's storage (an empty map when they never stored anything). */
export function botStorageOf(state: RealmState, userId: number): ReadonlyMap<string, string> {
  return state.botStorage?.get(userId) ?? new Map();
}

/** Characters the user's storage would hold after writing `entries` (Zulip's size arithmetic). */
export function botStorageSizeAfter(state: RealmState, userId: number, entries: ReadonlyArray<readonly [string, string]>): number {
  const current = new Map(botStorageOf(state, userId));
  for (const [key, value] of entries) current.set(key, value);
  let size = 0;
  for (const [key, value] of current) size += key.length + value.length;
  return size;
}

/** `evolve` of the bot-storage records. */
export function evolveBotStorage(state: RealmState, r: BotStorageRecord): void {
  const all = (state.botStorage ??= new Map());
  const mine = new Map(all.get(r.userId) ?? []);
  if (r.type === 'bot_storage_set') for (const [key, value] of r.entries) mine.set(key, value);
  else for (const key of r.keys) mine.delete(key);
  if (mine.size === 0) all.delete(r.userId);
  else all.set(r.userId, mine);
}

/** Snapshot form: `[userId, [[key, value]...]]` pairs; undefined when empty. */
export function botStorageToCore(state: RealmState): Array<[number, Array<[string, string]>]> | undefined {
  if (state.botStorage === undefined || state.botStorage.size === 0) return undefined;
  return [...state.botStorage].map(([userId, entries]) => [userId, [...entries]]);
}

/** Restores `botStorageToCore` output. */
export function botStorageFromCore(state: RealmState, core: Array<[number, Array<[string, string]>]> | undefined): void {
  if (core !== undefined) state.botStorage = new Map(core.map(([userId, entries]) => [userId, new Map(entries)]));
}
