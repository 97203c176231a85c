/**
 * Emoji reaction endpoints (https://zulip.com/api/get-message; OpenAPI `add-reaction` /
 * `remove-reaction`; Zulip's
 * `zerver/views/reactions.py`, typed-endpoint dialect):
 * - `POST /messages/{message_id}/reactions`: `emoji_name` (required), `emoji_code`,
 *   `reaction_type` (both optional: looked up from the name when either is missing);
 * - `DELETE /messages/{message_id}/reactions`: `emoji_name`, `emoji_code` (one of them required),
 *   `reaction_type` (default `unicode_emoji`).
 * All three are plain strings. Success: the common wrapper only.
 *
 * The rules, their order and the error strings are in `realm/handlers/reactions.ts`.
 */
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

export const reactionEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/messages/{message_id}/reactions',
    auth: 'user',
    dialect: 'typed',
    params: {
      emoji_name: P.string({ required: true }),
      emoji_code: P.string(),
      reaction_type: P.string(),
    },
    handler: async ({ realm, user, params, path }) =>
      runCommand(realm!, {
        type: 'add_reaction',
        actorId: user!.id,
        messageId: path.message_id!,
        emojiName: params.emoji_name,
        ...(params.emoji_code !== undefined && { emojiCode: params.emoji_code }),
        ...(params.reaction_type !== undefined && { reactionType: params.reaction_type }),
      }),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/messages/{message_id}/reactions',
    auth: 'user',
    dialect: 'typed',
    params: {
      emoji_name: P.string(),
      emoji_code: P.string(),
      reaction_type: P.string({ default: 'unicode_emoji' }),
    },
    handler: async ({ realm, user, params, path }) =>
      runCommand(realm!, {
        type: 'remove_reaction',
        actorId: user!.id,
        messageId: path.message_id!,
        reactionType: params.reaction_type,
        ...(params.emoji_name !== undefined && { emojiName: params.emoji_name }),
        ...(params.emoji_code !== undefined && { emojiCode: params.emoji_code }),
      }),
  }),
];
