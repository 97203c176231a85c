/**
 * Bot storage writes (Zulip's zerver/views/storage.py `update_storage`, `remove_storage`;
 * zerver/lib/bot_storage.py): the acting user's own key-value store.
 *
 * Put: all entries or none; refused when the storage would exceed `BOT_STORAGE_LIMIT_CHARS`
 * ("Request exceeds storage limit by <n> characters. The limit is <limit> characters.").
 * Remove: every key must exist ("Key does not exist."), then all go at once. No events (Zulip
 * sends none).
 */
import { ok, fail, Errors } from '../../errors.js';
import { BOT_STORAGE_LIMIT_CHARS, botStorageOf, botStorageSizeAfter } from '../../domain/bot-storage.js';
import type { Handler } from '../decision.js';

/** `PUT /bot_storage`: `entries` in the order of the request's `storage` object. */
export interface PutBotStorage {
  type: 'put_bot_storage';
  actorId: number;
  entries: Array<[string, string]>;
}

/** `DELETE /bot_storage`: `keys` (every key of the storage when the request names none). */
export interface RemoveBotStorage {
  type: 'remove_bot_storage';
  actorId: number;
  keys: string[] | null;
}

export type BotStorageCommand = PutBotStorage | RemoveBotStorage;

/** Replies of the commands above. */
export interface BotStorageReplies {
  put_bot_storage: Record<string, never>;
  remove_bot_storage: Record<string, never>;
}

export const putBotStorage: Handler<PutBotStorage, BotStorageReplies['put_bot_storage']> = (state, cmd) => {
  if (!state.users.get(cmd.actorId)?.isActive) return fail(Errors.noSuchUser());
  const size = botStorageSizeAfter(state, cmd.actorId, cmd.entries);
  if (size > BOT_STORAGE_LIMIT_CHARS) {
    return fail(Errors.badRequest(`Request exceeds storage limit by ${size - BOT_STORAGE_LIMIT_CHARS} characters. The limit is ${BOT_STORAGE_LIMIT_CHARS} characters.`));
  }
  if (cmd.entries.length === 0) return ok({ records: [], events: [], reply: {} });
  return ok({ records: [{ type: 'bot_storage_set', v: 1, userId: cmd.actorId, entries: cmd.entries }], events: [], reply: {} });
};

export const removeBotStorage: Handler<RemoveBotStorage, BotStorageReplies['remove_bot_storage']> = (state, cmd) => {
  if (!state.users.get(cmd.actorId)?.isActive) return fail(Errors.noSuchUser());
  const storage = botStorageOf(state, cmd.actorId);
  const keys = cmd.keys ?? [...storage.keys()];
  if (keys.some((key) => !storage.has(key))) return fail(Errors.badRequest('Key does not exist.'));
  if (keys.length === 0) return ok({ records: [], events: [], reply: {} });
  return ok({ records: [{ type: 'bot_storage_removed', v: 1, userId: cmd.actorId, keys: [...new Set(keys)] }], events: [], reply: {} });
};
