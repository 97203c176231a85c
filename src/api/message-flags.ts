/**
 * Personal message flag endpoints (https://zulip.com/api/get-message; Zulip's `zerver/views/message_flags.py`
 * at feature level 417, typed-endpoint dialect; OpenAPI `update-message-flags`,
 * `update-message-flags-for-narrow`, `mark-all-as-read`, `mark-stream-as-read`,
 * `mark-topic-as-read`):
 *
 * - `POST /messages/flags`: `messages` (JSON list of ints), `op`, `flag` (all required, decoded
 *   in that order) → `{messages}`: the request's list as sent (Zulip: "Useless, but included for
 *   backwards compatibility"), not only the changed ids (those are in the event);
 * - `POST /messages/flags/narrow`: `anchor` (as `GET /messages`, without `use_first_unread_anchor`),
 *   `include_anchor` (default true), `num_before`, `num_after` (JSON non-negative ints), `narrow`
 *   (JSON list or null), `op`, `flag`. "The anchor can only be excluded at an end of the range";
 *   the range is clamped so that num_before + num_after ≤ 5000 (num_before keeps at least 2500
 *   when both are large); the messages are selected exactly as `GET /messages` selects them
 *   (`selectMessages`, history included), then flagged as by `/messages/flags` →
 *   `{processed_count, updated_count, first_processed_id, last_processed_id, found_oldest,
 *   found_newest}` (ids null when nothing was in range);
 * - `POST /mark_all_as_read` (deprecated) → `{complete: true}` (parley never times out);
 * - `POST /mark_stream_as_read` (`stream_id`), `POST /mark_topic_as_read` (`topic_name`,
 *   `stream_id`) → empty success.
 *
 * The rules and error strings are in `realm/handlers/message-flags.ts`.
 */
import Type from 'typebox';
import { Errors, ZulipError } from '../errors.js';
import { cleanNarrow, parseNarrow, type NarrowTerm } from '../domain/narrow.js';
import { selectMessages } from '../realm/queries/message-list.js';
import { parseAnchor } from './messages-fetch.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Zulip's `MAX_MESSAGES_PER_UPDATE`. */
export const MAX_MESSAGES_PER_UPDATE = 5000;

const NonNegativeInt = Type.Integer({ minimum: 0 });

/** Zulip's clamp: num_before + num_after ≤ 5000, num_before keeping up to half when both are large. */
export function clampRange(numBefore: number, numAfter: number): { numBefore: number; numAfter: number } {
  const before = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  return { numBefore: before, numAfter: Math.min(numAfter, MAX_MESSAGES_PER_UPDATE - before) };
}

export const messageFlagEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/messages/flags',
    auth: 'user',
    dialect: 'typed',
    params: {
      messages: P.json(Type.Array(Type.Integer()), { required: true }),
      op: P.string({ required: true }),
      flag: P.string({ required: true }),
    },
    handler: ({ realm, user, params }) =>
      runCommand(
        realm!,
        { type: 'update_message_flags', userId: user!.id, op: params.op, flag: params.flag, messages: params.messages },
        () => ({ messages: params.messages }),
      ),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/messages/flags/narrow',
    auth: 'user',
    dialect: 'typed',
    params: {
      anchor: P.string({ required: true }),
      include_anchor: P.bool({ default: true }),
      num_before: P.json(NonNegativeInt, { required: true }),
      num_after: P.json(NonNegativeInt, { required: true }),
      narrow: P.string({ required: true }),
      op: P.string({ required: true }),
      flag: P.string({ required: true }),
    },
    handler: async ({ realm, user, params }) => {
      let narrow: NarrowTerm[] | null = null;
      if (params.narrow.trim() !== 'null') {
        const parsed = parseNarrow(params.narrow);
        if (parsed instanceof ZulipError) return parsed;
        narrow = parsed;
      }
      const anchor = parseAnchor(params.anchor, false);
      if (params.num_before > 0 && params.num_after > 0 && !params.include_anchor) {
        return Errors.badRequest('The anchor can only be excluded at an end of the range');
      }
      const { numBefore, numAfter } = clampRange(params.num_before, params.num_after);
      const state = realm!.state;
      const cleaned = cleanNarrow(state, user!, narrow);
      if (cleaned instanceof ZulipError) return cleaned;
      const selected = selectMessages(
        state,
        user!,
        { anchor, includeAnchor: params.include_anchor, numBefore, numAfter, narrow: cleaned },
        (id) => realm!.messageBody(id),
      );
      if (selected instanceof ZulipError) return selected;
      const ids = selected.ids;
      return runCommand(
        realm!,
        { type: 'update_message_flags', userId: user!.id, op: params.op, flag: params.flag, messages: ids },
        (reply) => ({
          processed_count: ids.length,
          updated_count: reply.count,
          first_processed_id: ids.length > 0 ? ids[0] : null,
          last_processed_id: ids.length > 0 ? ids[ids.length - 1] : null,
          found_oldest: selected.foundOldest,
          found_newest: selected.foundNewest,
        }),
      );
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/mark_all_as_read',
    auth: 'user',
    dialect: 'typed',
    params: {},
    handler: ({ realm, user }) => runCommand(realm!, { type: 'mark_all_as_read', userId: user!.id }, () => ({ complete: true })),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/mark_stream_as_read',
    auth: 'user',
    dialect: 'typed',
    params: { stream_id: P.int({ required: true }) },
    handler: ({ realm, user, params }) =>
      runCommand(realm!, { type: 'mark_channel_as_read', userId: user!.id, streamId: params.stream_id, topic: null }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/mark_topic_as_read',
    auth: 'user',
    dialect: 'typed',
    params: { topic_name: P.string({ required: true }), stream_id: P.int({ required: true }) },
    handler: ({ realm, user, params }) =>
      runCommand(realm!, {
        type: 'mark_channel_as_read',
        userId: user!.id,
        streamId: params.stream_id,
        topic: params.topic_name,
      }),
  }),
];
