/**
 * `create_stream` and `subscribe` (https://zulip.com/api/subscribe). The full channel API (permissions,
 * `POST /channels/create`, events) builds on these.
 */
import { ok, fail, Errors } from '../../errors.js';
import { checkStreamName, findStreamByName, pickColor } from '../../domain/streams.js';
import { defaultStreamGroups } from '../../domain/groups.js';
import { MAX_STREAM_DESCRIPTION_LENGTH, codePointLength } from '../../domain/messages.js';
import type { RealmState } from '../../domain/realm-state.js';
import type { SubscriptionsAdded } from '../../domain/records.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { CreateStream, Subscribe, CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';

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

export const createStream: Handler<CreateStream, CommandReplies['create_stream']> = (state, cmd, ctx) => {
  const name = checkStreamName(cmd.name);
  if (!name.ok) return fail(Errors.badRequest(name.msg));
  if (findStreamByName(state, name.name)) return fail(Errors.badRequest(`Channel name '${name.name}' is already taken.`));
  const description = cmd.description.replace(/\r?\n/g, ' ');
  if (codePointLength(description) > MAX_STREAM_DESCRIPTION_LENGTH) {
    return fail(Errors.badRequest(`description is too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters)`));
  }
  for (const id of cmd.subscriberIds) if (!state.users.get(id)?.isActive) return fail(Errors.noSuchUser());
  const id = state.nextIds.stream;
  const recipientId = state.nextIds.recipient;
  const history = cmd.inviteOnly ? (cmd.historyPublicToSubscribers ?? false) : true;
  const records = [
    {
      type: 'stream_created' as const,
      v: 1 as const,
      id,
      recipientId,
      name: name.name,
      description,
      renderedDescription: description === '' ? '' : renderMarkdown(description),
      dateCreated: Math.floor(ctx.now()),
      creatorId: cmd.actorId,
      inviteOnly: cmd.inviteOnly,
      isWebPublic: cmd.isWebPublic,
      historyPublicToSubscribers: history,
      isDefault: cmd.isDefault,
      messageRetentionDays: null,
      topicsPolicy: 'inherit' as const,
      folderId: null,
      groups: defaultStreamGroups(state, cmd.actorId),
    },
    subscriptionRecord(state, id, recipientId, cmd.subscriberIds),
  ];
  return ok({ records, events: [], reply: { streamId: id } });
};

export const subscribe: Handler<Subscribe, CommandReplies['subscribe']> = (state, cmd) => {
  const stream = state.streams.get(cmd.streamId);
  if (stream === undefined) return fail(Errors.invalidStreamId());
  for (const id of cmd.userIds) if (!state.users.get(id)?.isActive) return fail(Errors.noSuchUser());
  const record = subscriptionRecord(state, stream.id, stream.recipientId, cmd.userIds);
  return ok({ records: record.subscriptions.length ? [record] : [], events: [], reply: {} });
};
