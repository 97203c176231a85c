/**
 * `subscribe` (zulip-behavior.md §3.2): system setup subscribing users to an existing channel (the
 * demo organization, tests), without events. Channels are created by `create_channel`
 * (`channel-create.ts`); clients subscribe through `update_subscriptions`.
 */
import { ok, fail, Errors } from '../../errors.js';
import { pickColor } from '../../domain/streams.js';
import type { RealmState } from '../../domain/realm-state.js';
import type { SubscriptionsAdded } from '../../domain/records.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';

/** Subscribe existing users to an existing channel (system setup; no permission checks). */
export interface Subscribe {
  type: 'subscribe';
  streamId: number;
  userIds: number[];
}

function subscriptionRecord(state: RealmState, streamId: number, recipientId: number, userIds: readonly number[]): SubscriptionsAdded {
  const existing = state.subscriptions.get(streamId);
  const fresh = [...new Set(userIds)].filter((id) => !existing?.has(id));
  return {
    type: 'subscriptions_added',
    v: 1,
    streamId,
    subscriptions: fresh.map((userId) => ({ userId, color: pickColor(state, userId, recipientId) })),
  };
}

export const subscribe: Handler<Subscribe, CommandReplies['subscribe']> = (state, cmd) => {
  const stream = state.streams.get(cmd.streamId);
  if (stream === undefined) return fail(Errors.invalidStreamId());
  for (const id of cmd.userIds) if (!state.users.get(id)?.isActive) return fail(Errors.noSuchUser());
  const record = subscriptionRecord(state, stream.id, stream.recipientId, cmd.userIds);
  return ok({ records: record.subscriptions.length ? [record] : [], events: [], reply: {} });
};
