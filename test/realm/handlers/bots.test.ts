/**
 * Bot administration handlers (Zulip's zerver/views/users.py `patch_bot_backend`,
 * `deactivate_bot_backend`, `regenerate_bot_api_key`, `add_bot_backend` with
 * zerver/lib/users.py `access_bot_by_id`): rules and error strings with "state unchanged", and the
 * `bot_updated` record surviving a snapshot round trip and replay.
 */
import t from 'tap';
import { decide, fingerprint, run, smallRealm, rejects } from '../../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../../src/domain/realm-snapshot.js';
import { evolve } from '../../../src/domain/evolve.js';
import type { RealmRecord } from '../../../src/domain/records.js';
import type { UpdateBot } from '../../../src/realm/handlers/bots.js';

const patch = (actorId: number, botId: number, over: Partial<UpdateBot> = {}): UpdateBot => ({ type: 'update_bot', actorId, botId, ...over });

t.test('update_bot, deactivate_bot, regenerate_bot_api_key: access and validation', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  rejects(t, state, patch(ids.member, 999), ctx, 'No such bot');
  rejects(t, state, patch(ids.admin, ids.other), ctx, 'No such bot');
  rejects(t, state, patch(ids.other, ids.bot, { fullName: 'Robot Two' }), ctx, 'Insufficient permission');
  rejects(t, state, { type: 'deactivate_bot', actorId: ids.other, botId: ids.bot }, ctx, 'Insufficient permission');
  rejects(t, state, { type: 'regenerate_bot_api_key', actorId: ids.guest, botId: ids.bot }, ctx, 'Insufficient permission');
  rejects(t, state, patch(ids.member, ids.bot, { fullName: 'otto other' }), ctx, 'Name is already in use!');
  rejects(t, state, patch(ids.member, ids.bot, { botOwnerId: ids.guest + 100 }), ctx, 'Failed to change owner, no such user');
  rejects(t, state, patch(ids.member, ids.bot, { botOwnerId: ids.bot }), ctx, "Failed to change owner, bots can't own other bots");
  // Access to the default channel is the actor's: "secret" is invisible to `other` but not to `member`.
  run(state, patch(ids.member, ids.bot, { botOwnerId: ids.other }), ctx);
  rejects(t, state, patch(ids.other, ids.bot, { defaultSendingStream: 'secret' }), ctx, "Invalid channel name 'secret'");
  rejects(t, state, patch(ids.other, ids.bot, { servicePayloadUrl: 'http://example.com/' }), ctx, 'This bot has no outgoing webhook service');
  rejects(t, state, patch(ids.admin, ids.bot, { defaultSendingStream: 'secret' }), ctx, "Invalid channel name 'secret'");
  const moved = decide(state, patch(ids.owner, ids.bot, { defaultSendingStream: 'secret', defaultAllPublicStreams: true }), ctx);
  t.ok(moved.ok, 'an administrator subscribed to the private channel may set it');
  t.equal(state.streams.get(streams.secret)!.name, 'secret');
  rejects(t, state, { type: 'add_bot', actorId: ids.member, fullName: 'Out Bot', shortName: 'out', botType: 3, payloadUrl: 'not a url' }, ctx, 'payload_url is not a URL');
  rejects(t, state, { type: 'add_bot', actorId: ids.member, fullName: 'Out Bot', shortName: 'out', botType: 3, payloadUrl: 'http://x/', interfaceType: 3 }, ctx, 'Invalid interface type');
});

t.test('bot_updated: owner, defaults, service and key survive a snapshot and replay', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const log: RealmRecord[] = [];
  const created = decide(state, { type: 'add_bot', actorId: ids.member, fullName: 'Out Bot', shortName: 'out', botType: 3, payloadUrl: 'http://127.0.0.1:9/', defaultSendingStream: 'general' }, ctx);
  t.ok(created.ok);
  if (!created.ok) return;
  for (const r of created.value.records) {
    evolve(state, r);
    log.push(r);
  }
  const botId = created.value.reply.userId;
  const steps = [
    patch(ids.member, botId, { servicePayloadUrl: 'http://127.0.0.1:10/', serviceInterface: 2, botOwnerId: ids.other, defaultEventsRegisterStream: 'general' }),
    { type: 'regenerate_bot_api_key' as const, actorId: ids.admin, botId },
  ];
  for (const cmd of steps) {
    const decided = decide(state, cmd, ctx);
    t.ok(decided.ok);
    if (!decided.ok) return;
    for (const r of decided.value.records) {
      evolve(state, r);
      log.push(r);
    }
  }
  const bot = state.users.get(botId)!;
  t.match(bot, { botOwnerId: ids.other, bot: { defaultSendingStreamId: streams.general, defaultEventsRegisterStreamId: streams.general, service: { baseUrl: 'http://127.0.0.1:10/', interface: 2, name: 'out' } } });
  t.equal(state.usersByApiKey.get(bot.apiKey), botId, 'the new key is indexed');
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(1, core, columns);
  t.equal(fingerprint(restored), fingerprint(state), 'snapshot round trip');
  t.equal(restored.usersByApiKey.get(bot.apiKey), botId);
  // Replay: the creation-time state plus the log gives the same bot.
  const replayed = smallRealm().state;
  for (const r of log) evolve(replayed, r);
  t.same(replayed.users.get(botId), bot, 'replay gives the same bot');
  t.ok(log.some((r) => r.type === 'bot_updated'), 'the log holds bot_updated records');
});
