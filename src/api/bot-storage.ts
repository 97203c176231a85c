/**
 * Bot storage (Zulip's zerver/views/storage.py; zproject/urls.py `bot_storage`): the caller's own
 * string key-value store, used by Zulip's bot framework (`zulip_bots` `StateHandler`).
 * - `GET /bot_storage` (`keys`: JSON list, default every key) → `{storage: {key: value}}`;
 *   a missing key is "Key does not exist.";
 * - `PUT /bot_storage` (`storage`: JSON object of strings);
 * - `DELETE /bot_storage` (`keys`: JSON list, default every key).
 * Writes: `realm/handlers/bot-storage.ts`.
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { botStorageOf } from '../domain/bot-storage.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { durableRead } from './durable-read.js';
import { P } from './params.js';

const Keys = Type.Array(Type.String());

/** `GET /bot_storage`. */
export const getBotStorage = defineEndpoint({
  auth: 'user',
  params: { keys: P.json(Keys) },
  handler: ({ realm, user, params }) =>
    durableRead(realm, () => {
      const storage = botStorageOf(realm.state, user.id);
      const keys = params.keys ?? [...storage.keys()];
      const out: Record<string, string> = {};
      for (const key of keys) {
        const value = storage.get(key);
        if (value === undefined) return Errors.badRequest('Key does not exist.');
        out[key] = value;
      }
      return { storage: out };
    }),
});

/** `PUT /bot_storage`. */
export const putBotStorage = defineEndpoint({
  auth: 'user',
  params: { storage: P.json(Type.Record(Type.String(), Type.String()), { required: true }) },
  handler: async ({ realm, user, params }) =>
    runCommand(realm, { type: 'put_bot_storage', actorId: user.id, entries: Object.entries(params.storage) }),
});

/** `DELETE /bot_storage`. */
export const removeBotStorage = defineEndpoint({
  auth: 'user',
  params: { keys: P.json(Keys) },
  handler: async ({ realm, user, params }) =>
    runCommand(realm, { type: 'remove_bot_storage', actorId: user.id, keys: params.keys ?? null }),
});
