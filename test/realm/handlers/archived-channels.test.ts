/**
 * Writes on an archived channel are refused, as Zulip refuses them: `access_message(...,
 * is_modifying_message=True)` in zerver/lib/message.py (edits and moves out of the channel,
 * deletes, reactions → "Invalid message(s)"), `access_stream_by_id` with `require_active` for the
 * target of a move and for typing ("Invalid channel ID"), `access_stream_for_send_message` for
 * sends ("Not authorized to send to channel '<name>'"). Reads and personal flags still work.
 * Every refusal leaves the state unchanged (`rejects`).
 */
import t from 'tap';
import { decide, rejects, run, smallRealm } from '../../support/realm-fixture.js';
import type { Command } from '../../../src/realm/commands.js';

/** A realm where "general" holds one message by `member` and has just been archived. */
function archivedRealm() {
  const realm = smallRealm();
  const { state, ctx, ids, streams } = realm;
  const sent = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.general, topic: 't', content: 'old', client: 'test' }, ctx);
  const elsewhere = run(state, { type: 'send_message', senderId: ids.member, messageType: 'stream', to: streams.empty, topic: 'e', content: 'movable', client: 'test' }, ctx);
  run(state, { type: 'add_reaction', actorId: ids.other, messageId: sent.id, emojiName: 'octopus' }, ctx);
  run(state, { type: 'archive_channel', actorId: ids.owner, streamId: streams.general }, ctx);
  return { ...realm, messageId: sent.id, elsewhereId: elsewhere.id };
}

const edit = (actorId: number, messageId: number, over: Record<string, unknown>): Command => ({
  type: 'edit_message', actorId, messageId, propagateMode: 'change_one', sendNotificationToOldThread: false, sendNotificationToNewThread: false, ...over,
} as Command);

t.test('message edits, moves, deletes and reactions in an archived channel', async (t) => {
  const { state, ctx, ids, streams, messageId, elsewhereId } = archivedRealm();
  const body = { content: 'old', rendered: '<p>old</p>' };
  const invalid = 'Invalid message(s)';
  rejects(t, state, edit(ids.member, messageId, { content: 'new', body, bodyVersion: 0 }), ctx, invalid);
  rejects(t, state, edit(ids.member, messageId, { topic: 'renamed' }), ctx, invalid);
  rejects(t, state, edit(ids.owner, messageId, { topic: 'renamed', propagateMode: 'change_all' }), ctx, invalid);
  rejects(t, state, edit(ids.owner, messageId, { streamId: streams.empty, propagateMode: 'change_all' }), ctx, invalid);
  rejects(t, state, { type: 'delete_message', actorId: ids.owner, messageId }, ctx, invalid);
  rejects(t, state, { type: 'delete_message', actorId: ids.member, messageId }, ctx, invalid);
  rejects(t, state, { type: 'add_reaction', actorId: ids.member, messageId, emojiName: 'smile' }, ctx, invalid);
  rejects(t, state, { type: 'remove_reaction', actorId: ids.other, messageId, emojiName: 'octopus', reactionType: 'unicode_emoji' }, ctx, invalid);
  // Moving a message of an active channel into the archived one: the target is refused.
  rejects(t, state, edit(ids.owner, elsewhereId, { streamId: streams.general, propagateMode: 'change_one' }), ctx, 'Invalid channel ID');
});

t.test('sending and typing to an archived channel', async (t) => {
  const { state, ctx, ids, streams } = archivedRealm();
  const name = state.streams.get(streams.general)!.name;
  const send = (senderId: number, to: number | string): Command => ({ type: 'send_message', senderId, messageType: 'stream', to, topic: 't', content: 'hi', client: 'test' });
  rejects(t, state, send(ids.member, streams.general), ctx, `Not authorized to send to channel '${name}'`);
  rejects(t, state, send(ids.owner, name), ctx, `Not authorized to send to channel '${name}'`);
  rejects(t, state, send(ids.bot, streams.general), ctx, `Not authorized to send to channel '${name}'`);
  rejects(t, state, { type: 'typing', senderId: ids.member, op: 'start', messageType: 'stream', streamId: streams.general, topic: 't' }, ctx, 'Invalid channel ID');
});

t.test('the same writes succeed once the channel is unarchived (the refusals were the archive)', async (t) => {
  const { state, ctx, ids, streams, messageId } = archivedRealm();
  run(state, { type: 'update_channel', actorId: ids.owner, streamId: streams.general, isArchived: false, groups: {} }, ctx);
  t.equal(state.streams.get(streams.general)!.isArchived, false, 'unarchived');
  const reacted = decide(state, { type: 'add_reaction', actorId: ids.member, messageId, emojiName: 'smile' }, ctx);
  t.ok(reacted.ok, 'reaction allowed');
  const edited = decide(state, edit(ids.member, messageId, { topic: 'renamed' }), ctx);
  t.ok(edited.ok, 'topic edit allowed');
  const deleted = decide(state, { type: 'delete_message', actorId: ids.owner, messageId }, ctx);
  t.ok(deleted.ok, 'delete allowed');
});
